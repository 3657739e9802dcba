"""The secretary's screens."""
