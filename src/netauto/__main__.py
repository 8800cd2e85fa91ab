"""`python -m netauto`: the same as the `netauto` command."""

from netauto.cli import main

if __name__ == "__main__":
    main()
