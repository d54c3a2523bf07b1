"""What the rule extractor reads after a subject: the predicates of common personal facts.

Each ``Predicate`` is a pattern that starts at the verb ("lives in Bergen",
"'m vegetarian", "works at Flipkart as a data engineer") and names its
attribute; the subject before it (I, my sister Asha, she) is decided by
``heuristic``, so one pattern serves the user and the people the user talks
about. A pattern's ``value`` group is the fact; ``title`` and ``org`` groups
give a second and third fact (a job title and an employer said together);
``ended`` marks a fact said as past ("I used to live in Tartu": history, not
the current value). The vocabularies are general English (diets, occupations,
relations), not any data set's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "CLAUSE_END",
    "END",
    "NUMBER",
    "OCCUPATION",
    "PAST_IRREGULAR",
    "PREDICATES",
    "RELATION_NAMED",
    "VALUE",
    "Predicate",
]

# A value runs to the end of its clause, without a trailing time phrase; a dot inside a word
# ("john.doe@company.com", "3.5") is part of it.
VALUE = r"(?P<value>(?:(?:Dr|Mr|Mrs|Ms|Prof|St)\.\s+)?(?:[^,;.!?]|\.(?=\w))+?)"
END = r"(?=\s*(?:[,;!?]|\.(?!\w)|\band\b|\bbut\b|\bsince\b|\bthough\b|\bfor\b|\bnow\b|$))"
# Where a clause ends: "and" joins two clauses only when a subject follows it ("... a safe and
# loving home" is one phrase; "... Dr. Rao and she is great" two clauses).
CLAUSE_END = (
    r"(?=\s*(?:[,;!?]|\.(?!\w)|\b(?:and|but)\s+(?:i|you|he|she|it|we|they|my|his|her|our|their|"
    r"there|this|that)\b|\bbut\b|\bsince\b|\bthough\b|$))"
)
_CAPS = r"[A-Z][\w'&-]*(?:\s+(?:of\s+|de\s+|&\s+)?[A-Z][\w'&-]*)*"
PLACE = rf"(?P<value>{_CAPS})"
_ORG = rf"(?P<org>{_CAPS})"
_ARTICLE = r"(?:an?\s+|the\s+)?"
# Clauses are read with contractions spelt out ("I'm" -> "I am"): ``heuristic.spelt_out``.
_BE = r"\s+(?:am|is|are)"
_BEEN = r"\s+(?:have|has)\s+been"
_WAS = r"\s+(?:was|were|used\s+to\s+be)"
_HAVE = r"(?:\s+(?:have|has))?"
_ADV = (
    r"(?:\s+(?:now|also|still|currently|just|only|mostly|actually|really|strictly|fully|"
    r"finally|recently|originally|both|usually|always))*"
)
NUMBER = (
    r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety)(?:[-\s](?:one|two|three|four|five|six|seven|eight|nine))?"
)

# Verbs whose past is not "-ed": "I took", "we went".
PAST_IRREGULAR = (
    "went|gave|got|had|made|took|came|saw|met|fell|broke|bought|sold|left|ran|won|lost|began|"
    "became|found|wrote|spent|sent|built|drove|flew|ate|drank|sang|swam|threw|wore|woke|hurt|"
    "quit|told|said|paid|heard|held|kept|felt|taught|caught|brought|fought|chose|forgot|rode|"
    "laid|spoke|shook|grew|knew|drew|slept|lent|led|hid|hung|stood|sat|did|moved"
)

DIETS = (
    r"vegetarian|vegan|pescatarian|pescetarian|eggetarian|flexitarian|lacto-vegetarian|"
    r"ovo-vegetarian|keto|paleo|gluten-free|dairy-free|halal|kosher|teetotal|teetotaller|"
    r"teetotaler|carnivore|raw\s+vegan|jain"
)
# Head nouns of job titles: "I'm a nurse", "she's a marine biologist".
_OCCUPATIONS = (
    r"engineer|developer|programmer|designer|architect|analyst|scientist|researcher|"
    r"consultant|manager|director|teacher|professor|lecturer|tutor|nurse|doctor|physician|"
    r"surgeon|dentist|pharmacist|paramedic|therapist|lawyer|attorney|solicitor|barrister|"
    r"judge|accountant|auditor|banker|economist|journalist|reporter|editor|writer|author|"
    r"translator|photographer|filmmaker|videographer|illustrator|animator|artist|painter|"
    r"sculptor|musician|singer|composer|actor|actress|dancer|chef|cook|baker|barista|"
    r"bartender|waiter|waitress|pilot|driver|mechanic|electrician|plumber|carpenter|"
    r"farmer|gardener|librarian|clerk|cashier|receptionist|secretary|assistant|"
    r"technician|administrator|officer|founder|co-founder|entrepreneur|freelancer|intern|"
    r"student|veterinarian|vet|midwife|coach|trainer|recruiter|marketer|salesperson|"
    r"planner|strategist|statistician|mathematician|physicist|chemist|biologist|"
    r"geologist|tester|ceo|cto|cfo|coo|pm|sre|devops|[a-z]+ologist|[a-z]+ician"
)
# A job title: up to three words before an occupation noun ("senior backend engineer").
OCCUPATION = rf"(?:[\w-]+\s+){{0,3}}?(?:{_OCCUPATIONS})s?\b"
_TITLE = rf"(?P<title>{OCCUPATION})"
_RELATIONS = (
    r"sister|brother|mother|mom|mum|father|dad|wife|husband|partner|son|daughter|friend|"
    r"boss|manager|colleague|coworker|co-worker|cousin|aunt|uncle|grandmother|grandma|"
    r"grandfather|grandpa|roommate|flatmate|housemate|girlfriend|boyfriend|fiancee|fiance|"
    r"fiancé|fiancée|neighbour|neighbor|niece|nephew|teacher|mentor|landlord|landlady|"
    r"doctor|dentist|therapist|stepmother|stepfather|stepson|stepdaughter|sister-in-law|"
    r"brother-in-law|mother-in-law|father-in-law|teammate|classmate|coach|kid|child|baby"
)
# "my sister Asha", "our neighbour Mr. Fernandes": the user's relation, by name.
RELATION_NAMED = re.compile(
    rf"\b(?i:my|our)\s+(?:(?i:older|younger|little|big|elder|best|eldest|youngest|new|"
    rf"old|twin|baby)\s+)?(?P<rel>(?i:{_RELATIONS}))\b,?\s+(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Prof)"
    r"\.?\s+)?[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?)(?!\s*[A-Z])"
)


@dataclass(frozen=True)
class Predicate:
    """A pattern read after a subject, and the attribute its ``value`` group fills."""

    attribute: str
    pattern: re.Pattern[str]
    ended: bool = False
    first_person: bool = False  # only the user says it so ("I'm 34")


def _p(attribute: str, pattern: str, *, ended: bool = False, first: bool = False) -> Predicate:
    """A predicate: adverbs may come first ("I now live in ...")."""
    return Predicate(attribute, re.compile(rf"^{_ADV}{pattern}"), ended, first)


PREDICATES: tuple[Predicate, ...] = (
    # where someone lives, lived, moved to, grew up, was born
    _p("home_city", rf"(?:{_BE}{_ADV})?\s+(?i:live|lives|living|based|staying|stay|stays|settled)"
                    rf"\s+in\s+{PLACE}"),
    _p("home_city", rf"{_HAVE}{_ADV}\s+(?i:moved|relocated|shifted)(?:\s+(?i:from)\s+{_CAPS})?"
                    rf"\s+(?i:to)\s+{PLACE}"),
    _p("home_city", rf"{_HAVE}{_ADV}\s+(?i:moved|relocated|shifted)\s+(?i:from)\s+{PLACE}",
       ended=True),
    _p("home_city", rf"\s+(?i:used\s+to\s+live|lived)\s+in\s+{PLACE}", ended=True),
    _p("birthplace", rf"{_WAS}{_ADV}\s+(?i:born)\s+in\s+{PLACE}"),
    _p("hometown", rf"\s+(?i:grew\s+up)\s+in\s+{PLACE}"),
    _p("hometown", rf"{_BE}{_ADV}\s+(?i:from)\s+{PLACE}{END}", first=True),
    _p("living_situation", rf"\s+(?i:live|lives|living)\s+(?P<value>(?i:alone|with)\b"
                           rf"[^,;.!?]*?){END}"),
    _p("housing", rf"\s+(?i:rent|rents|own|owns)\s+(?i:an?)\s+(?P<value>(?i:flat|house|apartment|"
                  rf"studio|room|place|condo|bungalow|cottage)\b[^,;.!?]*?){END}"),
    # work
    _p("employer", rf"\s+(?i:work|works|working)\s+(?i:at|for)\s+{PLACE}"
                   rf"(?:\s+(?i:as)\s+{_ARTICLE}{_TITLE})?"),
    _p("job_title", rf"\s+(?i:work|works|working)\s+(?i:as)\s+{_ARTICLE}"
                    rf"(?P<value>[^,;.!?]+?)(?:\s+(?i:at|for)\s+{_ORG})?{END}"),
    _p("job_title", rf"{_BE}{_ADV}\s+(?i:an?)\s+(?P<value>[^,;.!?]+?)\s+(?i:at|for)\s+{_ORG}"),
    _p("job_title", rf"{_BE}{_ADV}\s+(?i:an?)\s+(?P<value>{OCCUPATION}){END}"),
    _p("employer", rf"{_HAVE}{_ADV}\s+(?i:joined)\s+{PLACE}"
                   rf"(?:\s+[^,;.!?]*?\b(?i:as)\s+{_ARTICLE}{_TITLE})?"),
    _p("employer", rf"\s+(?i:got|found|landed|started)\s+(?i:an?\s+)?(?i:new\s+)?(?i:job)\s+"
                   rf"(?i:at|with)\s+(?i:the\s+)?{VALUE}{END}"),
    _p("employer", rf"(?:{_WAS}|\s+got){_ADV}\s+(?i:laid\s+off|fired|let\s+go)\s+(?i:from|by)"
                   rf"\s+{PLACE}", ended=True),
    _p("employer", rf"\s+(?i:left|quit)\s+(?i:my\s+job\s+at\s+)?{PLACE}", ended=True),
    _p("job_title", rf"\s+(?i:got|was|have\s+been|has\s+been)\s+(?i:promoted)\s+(?i:to)\s+"
                    rf"{_ARTICLE}(?P<value>{OCCUPATION})"),
    # diet, health
    _p("diet", rf"(?:{_BE}|{_BEEN}){_ADV}\s+{_ARTICLE}(?i:strict\s+)?(?P<value>(?i:{DIETS}))\b"),
    _p("diet", rf"(?:{_WAS}|\s+(?i:tried|quit|gave\s+up|stopped\s+being)){_ADV}\s+{_ARTICLE}"
               rf"(?P<value>(?i:{DIETS}))\b", ended=True),
    _p("intolerance", rf"{_BE}{_ADV}\s+(?P<value>[a-z]+)\s+(?i:intolerant)\b"),
    _p("allergy", rf"{_BE}{_ADV}\s+(?i:(?:very|severely|mildly|seriously)\s+)?(?i:allergic)"
                  rf"\s+to\s+{VALUE}{END}"),
    _p("medical_condition", r"\s+(?i:have|has|suffers?\s+from|was\s+diagnosed\s+with|"
                            r"got\s+diagnosed\s+with)\s+(?P<value>(?:[\w-]+\s+){0,3}?(?i:"
                            r"diabetes|asthma|arthritis|hypertension|epilepsy|anaemia|anemia|"
                            r"celiac\s+disease|coeliac\s+disease|adhd|eczema|psoriasis|"
                            r"high\s+blood\s+pressure|cancer|depression|anxiety))\b"),
    # age, languages
    _p("age", rf"{_BE}\s+(?P<value>{NUMBER})(?:\s+(?i:years?\s+old|years|yo))?"
              rf"(?=\s*(?:[,;.!]|\band\b|$))", first=True),
    _p("age", rf"{_BE}\s+(?P<value>{NUMBER}\s+(?i:years?|months?)\s+old)\b"),
    _p("language", r"\s+(?i:speak|speaks)\s+(?P<value>[A-Z][a-z]+(?:(?:,\s*|\s+and\s+)"
                   r"[A-Z][a-z]+)*)"),
    _p("learning", rf"{_BE}{_ADV}\s+(?i:learning)\s+(?P<value>[A-Z][a-z]+)\b"),
    # likes and dislikes that hold (not "I love it")
    _p("dislikes", rf"\s+(?i:hates?|dislikes?|detests?|cannot\s+stand|cannot\s+bear)"
                   rf"\s+{VALUE}{END}"),
    _p("avoids", rf"\s+(?i:avoids?)\s+{VALUE}{END}"),
    _p("prefers", rf"\s+(?i:prefers?)\s+{VALUE}{END}"),
    _p("children", rf"\s+(?i:have|has)\s+(?P<value>{NUMBER})\s+(?i:kids|children)\b"),
)  # fmt: skip
