import agentry


def test_version_is_exposed() -> None:
    assert agentry.__version__ == "0.1.0"
