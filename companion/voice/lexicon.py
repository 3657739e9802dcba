"""Pronunciations of the four words and the call grammar, for the en-us acoustic model.

Phones are ARPAbet as in CMUdict. The variants cover how English and German
players say the words (issues 8 and 18): IÄÄ! as ee-ah, ya, "ia" (also
read eye-ah or ee-ay), i-a-a and German "i-ä"; Cthulhu! as k-thoo-loo,
ka-thoo-loo, ka-tul-hu, k-tuh-lu, German "ktulu" and "tschulu"; Ph'nglui! as
fng-lu-ee, f-nuh-glu-ee, puh-ng-lui, fung-glyoo-ee and German pf-; Fhtagn! as
f-tag-n, fuh-tahgn, fuh-tag-en, English eff-tagn and German "ftagn" or
foo-tagn. The fourth round's (the last of each word) come from how espeak-ng
read development seed 5's plain spellings. German sounds the English model lacks are mapped to the
nearest English phone (ä → EH, short a → AA/AH, final -gn → G N).
"""

from __future__ import annotations

from companion.rules import Call, Word

#: Dictionary token of each word (plain ASCII: pocketsphinx's dict format).
TOKEN: dict[Word, str] = {
    Word.IAA: "iaa",
    Word.CTHULHU: "cthulhu",
    Word.PHNGLUI: "phnglui",
    Word.FHTAGN: "fhtagn",
}
WORD_OF_TOKEN: dict[str, Word] = {t: w for w, t in TOKEN.items()}

PRONUNCIATIONS: dict[Word, tuple[str, ...]] = {
    Word.IAA: (
        "IY AA",  # ee-ah
        "IY AH",
        "IY AE",  # ee-aah (flat a)
        "IY EH",  # German i-ä
        "IY Y AA",  # ee-ya
        "IY AA AA",  # i-a-a, drawn out
        "IY EH EH",  # German iää, drawn out
        "Y AA",  # ya: also "ja" and "yeah", which the confidence must tell apart
        "Y AH",
        "AY AH",  # English eye-ah, reading "Ia" as spelled
        "AY AA",
        "IY AH AA",  # i-a-a
        "IH AA",  # a short i, said fast
        "IY EY",  # English ee-ay, reading "Ia" or "Ee-a" as spelled
    ),
    Word.CTHULHU: (
        "K AH TH UW L UW",  # ka-thoo-loo
        "K TH UW L UW",  # k-thoo-loo
        "K AA TH UW L UW",
        "K AH T UW L UW",
        "K T UW L UW",  # German ktulu
        "K AH T UH L UW",  # k-tuh-lu
        "K T AH L UW",
        "K AA T UW L UW",  # ka-too-loo
        "K AH TH UH L UW",
        "K AA T UH L HH UW",  # ka-tul-hu
        "K AH T AH L HH UW",
        "K AA T UW L HH UW",
        "K TH UW L HH UW",  # English reading of the spelling: c-thul-hu
        "CH UW L UW",  # German tschulu
        "CH UH L UW",
        "T SH UW L UW",
        "K AA TH AH L HH UW",  # ka-thul-hu, the spelling read in English
        "K UW T UW L UW",  # German koo-too-loo
    ),
    Word.PHNGLUI: (
        "F NG L UW IY",  # fng-lu-ee
        "F NG G L UW IY",
        "F AH N G L UW IY",  # f-nuh-glu-ee
        "F AH NG G L UW IY",
        "F AH NG L UW IY",
        "F N G L UW IY",
        "P AH NG L UW IY",  # puh-ng-lui
        "P AH NG G L UW IY",
        "P NG L UW IY",
        "F NG L W IY",  # -lui as one syllable
        "P AH NG L W IY",
        "F N L UW IY",  # the ng lost: fn-lu-ee
        "F AH N L UW IY",
        "P F NG L UW IY",  # German pf-
        "F AH NG G L UW IH",
        "F NG G L UW AY",  # English -lui as "louie"
        "F AH NG G L Y UW IY",  # English fung-glyoo-ee
        "F AH NG L Y UW IY",
    ),
    Word.FHTAGN: (
        "F T AE G N",  # f-tag-n
        "F T AE G AH N",
        "F T AA G N",  # German ftagn
        "F T AA G AH N",
        "F AH T AA G N",  # fuh-tahgn
        "F AH T AE G N",
        "F AH T AA G AH N",
        "F AH T AA N",  # g swallowed
        "F T AA N",
        "F T AE K AH N",
        "F AH T AE G AH N",  # fuh-tag-en
        "F T AE G EH N",
        "F T AA G EH N",
        "F HH T AE G N",  # the h said
        "F T AE NG",  # -gn as ng, said fast
        "EH F T AE G N",  # English eff-tagn: the F said as its letter
        "EH F T AE G AH N",
        "EH F T AA N",
        "F UW T AA G N",  # German "Fuh-tagn": foo-tagn
        "F UW T AE N",
    ),
}


#: The model's phones, each a one-phone "word" of the garbage loop that
#: competes with the calls: speech that is no call is cheaper to spell out.
GARBAGE_PHONES = (
    "AA",
    "AE",
    "AH",
    "AO",
    "AW",
    "AY",
    "B",
    "CH",
    "D",
    "DH",
    "EH",
    "ER",
    "EY",
    "F",
    "G",
    "HH",
    "IH",
    "IY",
    "JH",
    "K",
    "L",
    "M",
    "N",
    "NG",
    "OW",
    "OY",
    "P",
    "R",
    "S",
    "SH",
    "T",
    "TH",
    "UH",
    "UW",
    "V",
    "W",
    "Y",
    "Z",
    "ZH",
)


def dictionary_text() -> str:
    """A pocketsphinx dictionary: alternates are written ``token(2)``, ``token(3)``…"""
    lines = [f"ph_{p.lower()} {p}" for p in GARBAGE_PHONES]
    for word, prons in PRONUNCIATIONS.items():
        for n, phones in enumerate(prons, start=1):
            name = TOKEN[word] if n == 1 else f"{TOKEN[word]}({n})"
            lines.append(f"{name} {phones}")
    return "\n".join(lines) + "\n"


def phone_count(token: str) -> int:
    """Phones of a hypothesis token ("fhtagn(3)": the third pronunciation); 0 if unknown."""
    name, _, alt = token.partition("(")
    word = WORD_OF_TOKEN.get(name)
    if word is None:
        return 0
    n = int(alt.rstrip(")")) if alt else 1
    prons = PRONUNCIATIONS[word]
    return len(prons[n - 1].split()) if 1 <= n <= len(prons) else 0


def call_tokens(call: Call) -> str:
    return " ".join(TOKEN[w] for w in call)


def grammar_jsgf(calls: tuple[Call, ...], garbage: bool = False) -> str:
    """A JSGF grammar whose sentences are these calls (or any phones, with ``garbage``).

    Each word may be said more than once in a row ("IÄÄ! IÄÄ! Cthulhu!"):
    an excited player's repeat is still the same call.
    """
    if not calls and not garbage:
        raise ValueError("a grammar needs at least one call")
    alts = [f"( {' '.join(TOKEN[w] + '+' for w in c)} )" for c in calls]
    extra = ""
    if garbage:
        alts.append("<garbage>")
        phones = " | ".join(f"ph_{p.lower()}" for p in GARBAGE_PHONES)
        extra = f"<garbage> = ( {phones} )+;\n"
    return f"#JSGF V1.0;\ngrammar calls;\npublic <call> = {' | '.join(alts)};\n{extra}"


def parse_tokens(hypstr: str) -> Call | None:
    """The call a grammar hypothesis spells (a word said twice counts once), or None."""
    # Segments name the pronunciation used ("iaa(3)"); the word is before "(".
    tokens = (t.split("(", 1)[0] for t in hypstr.split())
    words = [WORD_OF_TOKEN[t] for t in tokens if t in WORD_OF_TOKEN]
    call = tuple(w for i, w in enumerate(words) if i == 0 or w != words[i - 1])
    return call or None


def is_garbage(token: str) -> bool:
    return token.startswith("ph_")
