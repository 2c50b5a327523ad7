"""The shop's best sellers."""


def top_sellers(products, count=3):
    """The names of the count products that sold the most units, best seller first."""
    ranked = sorted(products, key=lambda product: product["price"], reverse=True)
    return [product["name"] for product in ranked[:count]]
