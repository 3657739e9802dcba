"""Hearing the spoken call (optional extra ``voice``: pocketsphinx, sounddevice).

Only ``recognizer``, ``listen`` and the command handlers import pocketsphinx or
sounddevice, and only when called; ``heard``, ``narrow``, ``lexicon`` and
``audio`` are plain Python and numpy, so the rest of the companion can use
them without the extra.
"""
