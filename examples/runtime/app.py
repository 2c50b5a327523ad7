"""A small shop report: the average basket of each day. Tuesday had no orders."""

from shop.stats import average_basket

from pytest_caretaker.runtime import install

DAYS = {
    "monday": [12.0, 30.0, 18.0],
    "tuesday": [],
}


def main():
    install()  # an unhandled exception anywhere is recorded too
    for day, baskets in DAYS.items():
        print(f"{day}: {average_basket(baskets):.2f}")


if __name__ == "__main__":
    main()
