"""The Textual secretary: screens for a live game, and the demo on the simulated table."""
