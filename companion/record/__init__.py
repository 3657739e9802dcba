"""Game records: the NOTATION.md reader and writer, and replay."""
