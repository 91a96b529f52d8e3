"""Import every built-in game's rule module so their rules register themselves."""
