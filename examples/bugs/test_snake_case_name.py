from snake_case_name import to_snake_case


def test_a_single_word():
    assert to_snake_case("name") == "name"
    assert to_snake_case("Name") == "name"


def test_camel_case():
    assert to_snake_case("userName") == "user_name"


def test_pascal_case():
    assert to_snake_case("HttpStatusCode") == "http_status_code"
