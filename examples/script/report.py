"""Print the average rating of each product: the kind of small script that runs nightly.

It crashes on a product with no ratings yet; try ``caretaker run -- python report.py``.
"""

RATINGS = {
    "kettle": [5, 4, 4],
    "toaster": [3, 5],
    "blender": [],  # new this week: nobody has rated it
}


def average(ratings):
    if len(ratings) >= 0:
        return sum(ratings) / len(ratings)
    return 0.0


def main():
    for product, ratings in sorted(RATINGS.items()):
        print(f"{product:10} {average(ratings):.2f}")


if __name__ == "__main__":
    main()
