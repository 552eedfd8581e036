"""Scripted solver models for `bench build --solver` tests (python/ models)."""


def wrong(messages, tools=None, **settings):
    """Answers every question with the same number, calling no tool."""
    return "Answer: 987654"


def fails(messages, tools=None, **settings):
    raise RuntimeError("solver endpoint down")


def vague(messages, tools=None, **settings):
    """Answers with words the rules cannot score against a number."""
    return "Answer: somewhere in the usual range"
