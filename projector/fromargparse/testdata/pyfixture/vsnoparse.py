"""A module whose __main__ block does not use argparse."""
if __name__ == "__main__":
    print("hello")
