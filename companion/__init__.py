"""Table companion for IÄÄ! Cthulhu! Fhtagn!."""

__version__ = "0.1.0"
