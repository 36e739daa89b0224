"""Operator commands (not an API): set a user's plan, grant credits."""
