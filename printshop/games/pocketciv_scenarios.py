"""Register the PocketCiv scenario book's rules and map template helpers with the game modules."""

from .pocketciv_maps import scenario  # noqa: F401
