"""The rules engine: pure, deterministic, with rule ids in every verdict."""

from .actions import CENTER, Action, CallAction, GiveUp
from .calls import TABLE_K, Call, CallSyntaxError, Word, call_text, k_id, parse_call
from .faces import FACES, FaceError, parse_faces
from .game import Game, PhaseResult, Working
from .options import Doublers, IllegalCall, Options, OptionsError, StartRule
from .verdicts import RULE_TITLES, RuleError, Verdict

__all__ = [
    "CENTER",
    "FACES",
    "RULE_TITLES",
    "TABLE_K",
    "Action",
    "Call",
    "CallAction",
    "CallSyntaxError",
    "Doublers",
    "FaceError",
    "Game",
    "GiveUp",
    "IllegalCall",
    "Options",
    "OptionsError",
    "PhaseResult",
    "RuleError",
    "StartRule",
    "Verdict",
    "Word",
    "Working",
    "call_text",
    "k_id",
    "parse_call",
    "parse_faces",
]
