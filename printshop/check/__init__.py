"""The validator: the rules, the fact tables, what components print, located drawing failures."""
