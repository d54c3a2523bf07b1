"""How a rule is said: what it forbids, what it says to do instead, and what is no rule."""

from __future__ import annotations

import pytest

from orma_proxy.text import Prohibition, read_rule, said_rule


@pytest.mark.parametrize(
    ("rule", "forbidden", "instead"),
    [
        ("Don't use semicolons in PowerShell, use newlines instead.",
         "use semicolons in PowerShell", "use newlines"),
        ("Do not use the requests library; use httpx.", "use the requests library", "use httpx"),
        ("Never suggest taxis, I prefer the metro.", "suggest taxis", "the metro"),
        ("Never give me temperatures in Fahrenheit, use Celsius.",
         "give me temperatures in Fahrenheit", "use Celsius"),
        ("Never call os.system. Use subprocess.run instead.",
         "call os.system", "use subprocess.run"),
        ("never use tabs - use four spaces", "use tabs", "use four spaces"),
        ("Please don't use X but use Y.", "use X", "use Y"),
        ("forbidden: eval()", "eval()", ""),
        ("FORBIDDEN: forbidden: eval()", "eval()", ""),
        ("[FORBIDDEN: never use eval()]", "use eval()", ""),
        ("Avoid global mutable state.", "global mutable state", ""),
        ("Do not put emojis in your replies.", "put emojis in your replies", ""),
        # A list or a reason after the comma is no alternative.
        ("Never chain commands with ';', '&&' or '||'.",
         "chain commands with ';', '&&' or '||'", ""),
        ("Never use eval, exec or compile.", "use eval, exec or compile", ""),
        ("Never deploy on Fridays; it ruins weekends.",
         "deploy on Fridays; it ruins weekends", ""),
        ("Never use tabs; never use semicolons.", "use tabs; never use semicolons", ""),
    ],
)  # fmt: skip
def test_a_rule_is_split_into_what_it_forbids_and_what_to_do_instead(
    rule: str, forbidden: str, instead: str
) -> None:
    assert read_rule(rule) == Prohibition(forbidden, instead)


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("Never use semicolons in PowerShell, use newlines instead.",
         "use semicolons in PowerShell, use newlines instead"),
        ("Don't use the requests library.", "use the requests library"),
        ("Dont ever send me long answers!", "send me long answers"),
        ("Do not put emojis in your replies.", "put emojis in your replies"),
        ("Please never call me Sam, call me Samuel.", "call me Sam, call me Samuel"),
        ("Thanks, and from now on never suggest taxis.", "suggest taxis"),
    ],
)  # fmt: skip
def test_a_rule_said_in_chat_opens_with_its_negation(sentence: str, rule: str) -> None:
    assert said_rule(sentence) == rule


@pytest.mark.parametrize(
    "sentence",
    [
        "I never eat meat.",  # a statement about oneself, not a rule
        "I don't like mushrooms.",
        "Don't worry about it.",
        "Never mind.",
        "Don't forget to buy milk.",  # a reminder, not a rule for every reply
        "Don't know what to cook tonight.",
        "Don't you think so?",  # a question
        "Do not use tabs?",
        "Use newlines, not semicolons.",
        "No, I live in Pune.",
        "",
    ],
)
def test_what_sets_no_rule(sentence: str) -> None:
    assert said_rule(sentence) is None
