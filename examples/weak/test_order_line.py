from order_line import order_line


def test_a_line_without_a_size():
    assert order_line("mug") == {"sku": "mug", "quantity": 1, "size": None}


def test_a_quantity():
    assert order_line("mug", quantity=3)["quantity"] == 3


def test_a_line_with_a_size():
    assert order_line("tee", size="M") == {"sku": "tee", "quantity": 1, "size": "M"}
