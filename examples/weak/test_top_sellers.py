from top_sellers import top_sellers


def test_the_three_best_sellers():
    products = [
        {"name": "mug", "price": 8.0, "sold": 120},
        {"name": "poster", "price": 15.0, "sold": 40},
        {"name": "tee", "price": 12.0, "sold": 75},
        {"name": "hoodie", "price": 35.0, "sold": 12},
    ]
    assert top_sellers(products) == ["mug", "tee", "poster"]


def test_no_products():
    assert top_sellers([]) == []
