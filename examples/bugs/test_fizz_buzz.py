from fizz_buzz import fizzbuzz


def test_plain_numbers():
    assert fizzbuzz(1) == "1"
    assert fizzbuzz(14) == "14"


def test_fizz_and_buzz():
    assert fizzbuzz(3) == "Fizz"
    assert fizzbuzz(9) == "Fizz"
    assert fizzbuzz(10) == "Buzz"


def test_multiples_of_both():
    assert fizzbuzz(15) == "FizzBuzz"
    assert fizzbuzz(45) == "FizzBuzz"
