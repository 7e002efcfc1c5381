"""Question text -> the form of a typed query, with its phrases still to be resolved.

The forms (each with the wordings of the CLadder generator and common variants):

- marginal: "Is A more/less likely than B overall?", "Is A more likely than not?"
- correlation: "Is the chance of Y larger/smaller when observing X?"
- explaining away: "If we look at C, does the chance of Y increase/decrease when X?"
- collider bias: "If we look at C, does it mean that X affects / does not affect Y?"
- total effect: "Will X increase/decrease the chance of Y?", "Does X have a positive effect on Y?"
- back-door: "To understand how X affects Y, is it more correct to use Method 1 than Method 2?"
- effect on the treated: "For G, would it be more/less likely to see Y if G had been X'?"
- natural direct: "If we disregard the mediation effect through M, would X positively affect Y?"
- natural indirect: "Does X positively/negatively affect Y through M (and M')?"
- deterministic counterfactual: "Would Y if X' instead of X?"
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

UP = r"(?:increase|increases|raise|raises|boost|boosts|higher|larger|bigger|greater|more|positively|positive|improve|improves)"  # noqa: E501
DOWN = r"(?:decrease|decreases|reduce|reduces|lower|lowers|smaller|less|negatively|negative|diminish|diminishes)"  # noqa: E501
CHANCE = r"(?:the\s+)?(?:chance|chances|probability|likelihood|odds|risk|rate)\s+(?:of|that)"


def _direction(word: str) -> str:
    return "up" if re.fullmatch(UP, word.strip(), flags=re.I) else "down"


@dataclass
class QuestionForm:
    kind: str
    slots: dict[str, list[str]] = field(default_factory=dict)
    direction: str = ""  # up / down / affects / not_affects / first_better
    methods: tuple[str, str] = ("", "")
    # phrases read as "anyone" and left out ("on a given day", "a randomly chosen patient"):
    # the query refuses when one of them names the story's variables after all
    dropped: list[str] = field(default_factory=list)


def _list(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", text.strip()) if p.strip()]


_FORMS: list[tuple[str, str]] = [
    # back-door choice
    (
        "backdoor",
        r"to\s+understand\s+how\s+(?P<x>.+?)\s+affects\s+(?P<y>.+?),\s+is\s+it\s+more\s+correct\s+to\s+use\s+(?:the\s+)?(?:method|approach|strategy)\s+(?P<m1>\w+)\s+than\s+(?:the\s+)?(?:method|approach|strategy)\s+(?P<m2>\w+)",
    ),
    (
        "backdoor",
        r"(?:is|would)\s+(?:the\s+)?(?:method|approach|strategy)\s+(?P<m1>\w+)\s+(?:be\s+)?(?:more\s+correct|better|more\s+appropriate|preferable)\s+than\s+(?:the\s+)?(?:method|approach|strategy)\s+(?P<m2>\w+)\s+(?:to|for)\s+(?:understand(?:ing)?|estimat(?:e|ing)|learn(?:ing)?)\s+(?:how|the\s+effect\s+of)\s+(?P<x>.+?)\s+(?:affects|on)\s+(?P<y>.+)",
    ),
    # collider bias
    (
        "collider_bias",
        r"(?:if\s+we\s+look\s+at|among|looking\s+at|for|within)\s+(?P<c>.+?),\s+does\s+it\s+mean\s+that\s+(?P<x>.+?)\s+(?P<neg>does\s+not\s+affect|doesn't\s+affect|affects)\s+(?P<y>.+)",
    ),
    # explaining away
    (
        "explaining_away",
        rf"(?:if\s+we\s+look\s+at|among|looking\s+at|for|within)\s+(?P<c>.+?),\s+does\s+{CHANCE}\s+(?P<y>.+?)\s+(?P<dir>{UP}|{DOWN})\s+(?:when|if|given(?:\s+that)?|for|among)\s+(?P<x>.+)",
    ),
    # natural direct effect
    (
        "nde",
        rf"if\s+we\s+(?:disregard|ignore|block|set\s+aside|leave\s+out)\s+the\s+(?:mediation|mediated|indirect)\s+(?:effect|path|paths)\s+(?:through|via)\s+(?P<m>.+?),\s+(?:would|does|will)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+affect\s+(?P<y>.+)",
    ),
    (
        "nde",
        rf"(?:does|would|will)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+affect\s+(?P<y>.+?)\s+(?:directly|not\s+through|other\s+than\s+through|without\s+going\s+through)\s+(?P<m>.+)",
    ),
    # natural indirect effect
    (
        "nie",
        rf"(?:does|would|will)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+affect\s+(?P<y>.+?)\s+(?:only\s+)?(?:through|via)\s+(?P<m>.+)",
    ),
    # effect of treatment on the treated
    (
        "ett",
        r"(?:for|among)\s+(?P<g>.+?),\s+would\s+it\s+be\s+(?P<dir>more|less)\s+likely\s+to\s+(?:see|observe|find)\s+(?P<y>.+?)\s+if\s+(?P<cf>.+)",
    ),
    # deterministic counterfactual
    (
        "counterfactual",
        r"would\s+(?P<y>.+?)\s+if\s+(?P<x>.+?)\s+instead\s+of\s+(?P<x0>.+)",
    ),
    # marginal
    (
        "marginal",
        r"is\s+(?P<y>.+?)\s+(?P<dir>more|less)\s+likely\s+than\s+(?P<y0>.+?)\s+(?:overall|in\s+general|on\s+the\s+whole|in\s+the\s+population)",
    ),
    (
        "marginal",
        r"(?:overall,?\s+)?is\s+(?P<y>.+?)\s+(?P<dir>more|less)\s+likely\s+than\s+not(?:\s+overall)?",
    ),
    (
        "marginal",
        r"is\s+the\s+(?:overall\s+)?(?:probability|chance)\s+of\s+(?P<y>.+?)\s+(?P<dir>above|over|greater\s+than|more\s+than|higher\s+than|below|under|less\s+than|lower\s+than)\s+(?:50\s*%|50\s+percent|0\.5|one\s+half|half)(?:\s+overall)?",
    ),
    # correlation
    (
        "correlation",
        rf"is\s+{CHANCE}\s+(?P<y>.+?)\s+(?P<dir>{UP}|{DOWN})\s+when\s+(?:observing|we\s+observe|we\s+see|seeing)\s+(?P<x>.+)",
    ),
    (
        "correlation",
        r"is\s+(?P<y>.+?)\s+(?P<dir>more|less)\s+likely\s+(?:when|among|for|if|given)\s+(?:we\s+observe\s+|observing\s+)?(?P<x>.+)",
    ),
    (
        "correlation",
        r"does\s+(?:observing|seeing)\s+(?P<x>.+?)\s+make\s+(?P<y>.+?)\s+(?P<dir>more|less)\s+likely",
    ),
    # total effect
    (
        "ate",
        rf"(?:will|would|does|do|can)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+{CHANCE}\s+(?P<y>.+)",
    ),
    (
        "ate",
        r"(?:does|do|will|would)\s+(?P<x>.+?)\s+have\s+a\s+(?P<dir>positive|negative)\s+(?:causal\s+|total\s+)?effect\s+on\s+(?P<y>.+)",
    ),
    (
        "ate",
        rf"(?:does|do|will|would)\s+(?:setting|making|forcing)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+(?P<y>.+)",
    ),
]


_POS = r"(?:positive|greater\s+than\s+zero|above\s+zero|larger\s+than\s+zero|more\s+than\s+zero)"
_NEG = r"(?:negative|less\s+than\s+zero|below\s+zero|smaller\s+than\s+zero)"
_MORE = r"(?:more|higher|larger|greater)"
_LESS = r"(?:less|lower|smaller|fewer)"

# Forms added for other writers' wordings. Each gives the kind, the pattern, and how its
# direction word reads ("same": UP means up; "flip": UP means down; "pos": positive/negative).
_MORE_FORMS: list[tuple[str, str, str]] = [
    # back-door
    (
        "backdoor",
        r"to\s+estimate\s+(?:the\s+causal\s+effect\s+of\s+(?P<x>.+?)\s+on\s+(?P<y>.+?)|how\s+(?P<x2>.+?)\s+affects\s+(?P<y2>.+?)),\s+is\s+(?:the\s+)?(?:method|approach|strategy)\s+(?P<m1>\w+)\s+the\s+(?:better|right|correct)\s+(?:choice|one|method)",
        "same",
    ),
    (
        "backdoor",
        r"to\s+(?:estimate|understand|learn)\s+how\s+(?P<x>.+?)\s+affects\s+(?P<y>.+?),\s+should\s+we\s+(?:adjust\s+for|condition\s+on|stratify\s+by|control\s+for)\s+(?P<z>.+?)(?:\s*\(.*\))?",
        "same",
    ),
    (
        "backdoor",
        r"is\s+(?:the\s+)?(?:method|approach|strategy)\s+(?P<m1>\w+)\s+a\s+valid\s+way\s+to\s+(?:identify|estimate)\s+the\s+effect\s+of\s+(?P<x>.+?)\s+on\s+(?P<y>.+?),\s+while\s+(?:the\s+)?(?:method|approach|strategy)\s+(?P<m2>\w+)\s+is\s+not",
        "same",
    ),
    (
        "backdoor",
        r"is\s+the\s+(?:plain,?\s+)?(?:unadjusted|overall|crude|raw)\s+(?:correlation|association)\s+between\s+(?P<x>.+?)\s+and\s+(?P<y>.+?)\s+the\s+(?:right|correct)\s+(?:quantity|thing|measure).*",
        "empty",
    ),
    (
        "backdoor",
        r"would\s+it\s+be\s+(?:a\s+mistake|wrong)\s+to\s+(?:condition\s+on|adjust\s+for|stratify\s+by|control\s+for)\s+(?P<z>.+?)\s+when\s+estimating\s+the\s+(?:causal\s+)?effect\s+of\s+(?P<x>.+?)\s+on\s+(?P<y>.+)",
        "mistake",
    ),
    # collider bias
    (
        "collider_bias",
        r"can\s+we\s+conclude\s+from\s+the\s+(?:correlation|association)\s+(?:among|in|within)\s+(?P<c>.+?)\s+that\s+(?P<x>.+?)\s+(?:causes?\s+changes\s+in|affects?|has\s+a\s+causal\s+effect\s+on|causes?|influences?)\s+(?P<y>.+)",
        "affects",
    ),
    (
        "collider_bias",
        r"does\s+the\s+(?:correlation|association)\s+(?:among|in|within)\s+(?P<c>.+?)\s+show\s+that\s+(?P<x>.+?)\s+(?:has\s+a\s+causal\s+effect\s+on|affects?|causes?|influences?)\s+(?P<y>.+)",
        "affects",
    ),
    (
        "collider_bias",
        r"given\s+this\s+(?:correlation|association)\s+(?:among|in|within)\s+(?P<c>.+?),\s+should\s+we\s+still\s+say\s+that\s+(?P<x>.+?)\s+(?:do|does)\s+not\s+(?:affect|cause|influence)\s+(?P<y>.+)",
        "not_affects",
    ),
    (
        "collider_bias",
        r"is\s+it\s+true\s+that\s+(?P<x>.+?)\s+(?:has|have)\s+no\s+causal\s+effect\s+on\s+(?P<y>.+?),\s+even\s+though\s+they\s+are\s+(?:correlated|associated)\s+(?:among|in|within)\s+(?P<c>.+)",
        "not_affects",
    ),
    # explaining away
    (
        "explaining_away",
        rf"(?:among|restricting\s+attention\s+to|if\s+we\s+look\s+at|within|looking\s+only\s+at)\s+(?P<c>.+?),\s+does\s+(?:observing|learning\s+of|seeing|learning\s+about)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+the\s+(?:probability|chance|likelihood)\s+of\s+(?P<y>.+)",
        "same",
    ),
    (
        "explaining_away",
        rf"(?:among|restricting\s+attention\s+to|if\s+we\s+look\s+at|within|looking\s+only\s+at)\s+(?P<c>.+?),\s+does\s+(?:observing|learning\s+of|seeing|learning\s+about)\s+(?P<x>.+?)\s+make\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+likely",
        "same",
    ),
    (
        "explaining_away",
        rf"(?:among|restricting\s+attention\s+to|if\s+we\s+look\s+at|within|looking\s+only\s+at)\s+(?P<c>.+?),\s+is\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+likely\s+with\s+(?P<x>.+?)\s+than\s+with\s+(?P<x0>.+)",
        "same",
    ),
    (
        "explaining_away",
        r"(?:among|restricting\s+attention\s+to|if\s+we\s+look\s+at|within)\s+(?P<c>.+?),\s+does\s+the\s+(?:chance|probability)\s+of\s+(?P<y>.+?)\s+go\s+(?P<dir>up|down)\s+when\s+we\s+(?:learn\s+of|observe|see)\s+(?P<x>.+)",
        "same",
    ),
    # natural direct effect
    (
        "nde",
        rf"(?:setting\s+aside|ignoring|leaving\s+out|disregarding)\s+the\s+(?:pathway|path|route|effect|part)\s+(?:that\s+(?:goes|runs)\s+)?(?:via|through)\s+(?P<m>.+?),\s+does\s+(?P<x>.+?)\s+directly\s+make\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+likely",
        "same",
    ),
    (
        "nde",
        rf"(?:setting\s+aside|ignoring|leaving\s+out|disregarding)\s+the\s+(?:pathway|path|route|effect|part)\s+(?:that\s+(?:goes|runs)\s+)?(?:via|through)\s+(?P<m>.+?),\s+does\s+(?P<x>.+?)\s+have\s+a\s+(?P<dir>{_POS}|{_NEG})\s+direct\s+effect\s+on\s+(?P<y>.+)",
        "pos",
    ),
    (
        "nde",
        rf"is\s+the\s+(?:natural\s+)?direct\s+effect\s+of\s+(?P<x>.+?)\s+on\s+(?P<y>.+?),?\s+\(?(?:the\s+part\s+)?not\s+(?:passing\s+through|mediated\s+by|going\s+through)\s+(?P<m>.+?)\)?,?\s+(?P<dir>{_POS}|{_NEG})",
        "pos",
    ),
    (
        "nde",
        rf"if\s+(?P<m>.+?)\s+is\s+(?:kept|held|fixed)\s+at\s+the\s+level\s+it\s+would\s+(?:naturally\s+)?(?:take|have)\s+under\s+(?P<x0>.+?),\s+would\s+switching\s+to\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+the\s+(?:chance|probability)\s+of\s+(?P<y>.+)",
        "same",
    ),
    # natural indirect effect
    (
        "nie",
        rf"through\s+its\s+effect\s+on\s+(?P<m>.+?),\s+does\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+the\s+(?:chance|probability|likelihood)\s+of\s+(?P<y>.+)",
        "same",
    ),
    (
        "nie",
        rf"considering\s+only\s+the\s+(?:pathway|path|route)\s+(?:that\s+runs\s+)?(?:through|via)\s+(?P<m>.+?),\s+does\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+the\s+(?:chance|probability|likelihood)\s+of\s+(?P<y>.+)",
        "same",
    ),
    (
        "nie",
        rf"is\s+the\s+(?:natural\s+)?indirect\s+effect\s+of\s+(?P<x>.+?)\s+on\s+(?P<y>.+?),?\s+(?:via|through|mediated\s+by)\s+(?P<m>.+?),?\s+(?P<dir>{_POS}|{_NEG})",
        "pos",
    ),
    # effect on the treated
    (
        "ett",
        rf"is\s+the\s+effect\s+of\s+(?P<xn>.+?)\s+on\s+(?P<y>.+?)\s+for\s+the\s+treated\s+\((?:those|cases|people|the\s+ones)\s+who\s+actually\s+(?:have|are|had|were)\s+(?P<g>.+?)\)\s+(?P<dir>{_POS}|{_NEG})",
        "treated_pos",
    ),
    (
        "ett",
        rf"(?:for|among)\s+(?P<g>.+?),\s+does\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+their\s+(?:chance|probability)\s+of\s+(?P<y>.+?)\s+compared\s+(?:with|to)\s+what\s+(?P<cf>.+?)\s+would\s+have\s+given\s+them",
        "flip",
    ),
    (
        "ett",
        rf"among\s+(?:those|cases|people)\s+who\s+actually\s+(?:have|are|had|were)\s+(?P<g>.+?),\s+did\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+the\s+(?:chance|probability)\s+of\s+(?P<y>.+?)\s+compared\s+(?:with|to)\s+the\s+counterfactual\s+(?P<cf>.+)",
        "flip",
    ),
    (
        "ett",
        rf"(?:looking\s+at|for|among)\s+(?P<g>.+?):\s+in\s+the\s+counterfactual\s+(?:scenario|world|case)\s+with\s+(?P<cf>.+?)\s+instead,\s+would\s+(?P<y>.+?)\s+have\s+been\s+(?P<dir>{_MORE}|{_LESS})\s+likely",
        "same",
    ),
    (
        "ett",
        rf"(?:for|among)\s+(?P<g>.+?),\s+would\s+(?P<y>.+?)\s+have\s+been\s+(?P<dir>{_MORE}|{_LESS})\s+likely\s+(?:under|with|given)\s+(?P<cf>.+)",
        "same",
    ),
    # total effect
    (
        "ate",
        rf"(?:would|will|does)\s+(?:forcing|making|setting|imposing)\s+(?P<x>.+?)\s+(?:rather\s+than|instead\s+of)\s+(?P<x0>.+?)\s+(?P<dir>{UP}|{DOWN})\s+the\s+(?:probability|chance|likelihood)\s+of\s+(?P<y>.+)",
        "same",
    ),
    (
        "ate",
        rf"would\s+making\s+(?P<x>.+?)\s+happen\s+(?P<dir>{UP}|{DOWN})\s+the\s+(?:probability|chance|likelihood)\s+of\s+(?P<y>.+)",
        "same",
    ),
    (
        "ate",
        rf"if\s+everyone\s+were\s+(?:switched|moved|changed)\s+from\s+(?P<x0>.+?)\s+to\s+(?P<x>.+?),\s+would\s+(?P<y>.+?)\s+become\s+(?P<dir>{_MORE}|{_LESS})\s+(?:common|likely|probable|frequent)",
        "same",
    ),
    (
        "ate",
        rf"if\s+we\s+intervened\s+to\s+(?:bring\s+about|make|set|force)\s+(?P<x>.+?)\s+instead\s+of\s+(?P<x0>.+?),\s+would\s+(?P<y>.+?)\s+become\s+(?P<dir>{_MORE}|{_LESS})\s+(?:likely|common|probable|frequent)",
        "same",
    ),
    (
        "ate",
        rf"would\s+intervening\s+to\s+set\s+(?P<xn>.+?)\s+to\s+(?P<x>.+?)\s+instead\s+of\s+(?P<x0>.+?)\s+(?P<dir>{UP}|{DOWN})\s+the\s+(?:chance|probability|likelihood)\s+of\s+(?P<y>.+)",
        "same",
    ),
    (
        "ate",
        rf"is\s+the\s+average\s+(?:causal\s+|treatment\s+)?effect\s+of\s+(?P<x>.+?)(?:\s+\((?:versus|vs\.?|rather\s+than|compared\s+with)\s+(?P<x0>.+?)\))?\s+on\s+(?P<y>.+?)\s+(?P<dir>{_POS}|{_NEG})",
        "pos",
    ),
    (
        "ate",
        rf"does\s+(?P<x>.+?)\s+causally\s+make\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+(?:likely|probable|common)",
        "same",
    ),
    # correlation
    (
        "correlation",
        r"are\s+(?P<x>.+?)\s+and\s+(?P<y>.+?)\s+(?P<dir>positively|negatively)\s+(?:correlated|associated|related)",
        "pos",
    ),
    (
        "correlation",
        rf"is\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+(?:common|frequent|likely|probable)\s+among\s+(?:cases\s+with\s+|those\s+with\s+|people\s+with\s+)?(?P<x>.+?)\s+than\s+among\s+(?:cases\s+with\s+|those\s+with\s+|people\s+with\s+)?(?P<x0>.+)",
        "same",
    ),
    (
        "correlation",
        rf"is\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+likely\s+when\s+(?P<x>.+?)\s+is\s+observed\s+than\s+when\s+(?P<x0>.+?)\s+is\s+observed",
        "same",
    ),
    (
        "correlation",
        rf"does\s+(?:observing|seeing)\s+(?P<x>.+?)\s+\((?:rather\s+than|instead\s+of|versus)\s+(?P<x0>.+?)\)\s+make\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+(?:probable|likely)",
        "same",
    ),
    (
        "correlation",
        rf"is\s+{CHANCE}\s+(?P<y>.+?)\s+(?P<dir>{UP}|{DOWN})\s+when\s+we\s+(?:observe|see)\s+(?P<x>.+)",
        "same",
    ),
    # marginal
    (
        "marginal",
        r"does\s+(?P<y>.+?)\s+(?:happen|occur)\s+in\s+(?P<dir>more|less|fewer)\s+than\s+half\s+(?:of\s+)?(?:all\s+)?(?:the\s+)?cases",
        "same",
    ),
    (
        "marginal",
        r"is\s+the\s+overall\s+(?:probability|chance)\s+of\s+(?P<y>.+?)\s+(?P<dir>greater\s+than|above|over|more\s+than|higher\s+than|below|under|less\s+than|lower\s+than)\s+(?:50\s*%|50\s+percent|0\.5|one\s+half|half)",
        "same",
    ),
    # deterministic counterfactual
    (
        "counterfactual",
        r"had\s+it\s+been\s+(?P<x>.+?)\s+(?:rather\s+than|instead\s+of)\s+(?P<x0>.+?),\s+would\s+we\s+(?:see|observe|get)\s+(?P<y>.+)",
        "same",
    ),
    (
        "counterfactual",
        r"suppose\s+(?P<xn>.+?)\s+(?:were|was|had\s+been)\s+set\s+to\s+(?P<x>.+?)\s+instead\s+of\s+(?P<x0>.+?)\.\s+would\s+the\s+(?:outcome|result)\s+be\s+(?P<y>.+)",
        "same",
    ),
    (
        "counterfactual",
        r"under\s+an\s+intervention\s+that\s+makes\s+it\s+(?P<x>.+?)\s+\((?:instead\s+of|rather\s+than)\s+(?P<x0>.+?)\),\s+(?:does|would)\s+(?P<y>.+?)\s+(?:result|follow|occur|happen)",
        "same",
    ),
    (
        "counterfactual",
        r"would\s+(?P<y>.+?)\s+(?:occur|happen|result|follow)\s+if\s+(?P<x>.+?)\s+(?:instead\s+of|rather\s+than)\s+(?P<x0>.+)",
        "same",
    ),
]


# Everyday questions: "Does X make Y more likely?" asks what X does to Y (an effect), and
# "Is Y more likely among X than among X'?" compares groups (a correlation); "observing X"
# stays a correlation (read by the forms above).
_MORE_FORMS += [
    (
        "ate",
        rf"(?:does|do|will|would|can)\s+(?!observing\b|seeing\b)(?P<x>.+?)\s+(?:tend\s+to\s+)?make\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+(?:likely|probable)",
        "same",
    ),
    (
        "correlation",
        rf"is\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+(?:common|frequent|likely|probable)\s+(?:among|for|in|when|if|with)\s+(?P<x>.+?)\s+than\s+(?:(?:among|for|in|when|if|with(?!out\b))\s+)?(?P<x0>.+)",
        "same",
    ),
]

# "Does X cause Y?": a verb of causing asks whether X makes Y happen (the total effect is
# positive); a verb of preventing whether it keeps Y from happening (negative).
_CAUSING = (
    r"cause|causes|lead\s+to|leads\s+to|result\s+in|results\s+in|bring\s+about|brings\s+about|"
    r"produce|produces|contribute\s+to|contributes\s+to|promote|promotes|trigger|triggers"
)
_PREVENTING = (
    r"prevent|prevents|protect\s+against|protects\s+against|stop|stops|avert|averts|"
    r"guard\s+against|guards\s+against"
)
_MORE_FORMS += [
    (
        "ate",
        rf"(?:does|do|will|would|can)\s+(?P<x>.+?)\s+(?:really\s+|actually\s+)?(?P<dir>{_CAUSING}|{_PREVENTING})\s+(?P<y>.+)",
        "causing",
    ),
    (
        "ate",
        r"(?:is|are)\s+(?P<x>.+?)\s+(?:a|one)\s+(?:of\s+the\s+)?(?:causes?|reasons?)\s+(?:of|for)\s+(?P<y>.+)",
        "causing",
    ),
]


# A trailing phrase that only says "anyone" ("on a given day", "for a machine during a
# shift"): an indefinite article and one noun, or a generic adjective and one noun.
_ANYONE = (
    r"(?:\s*,?\s+(?:on|for|in|at|during)\s+(?:a|an|any)\s+"
    r"(?:(?:given|random|typical|average|single|particular)\s+)?[\w-]+){0,2}"
)
_MORE_FORMS += [
    (
        "marginal",
        rf"(?:overall,?\s+)?(?:is|are)\s+(?P<y>.+?)\s+(?P<dir>more|less)\s+likely\s+than\s+not(?:\s+overall)?(?P<anyone>{_ANYONE})",
        "same",
    ),
    (
        "ett",
        rf"(?:for|among)\s+(?:the\s+)?(?P<g>.+?),\s+would\s+(?P<y>.+?)\s+have\s+been\s+(?P<dir>{_MORE}|{_LESS})\s+likely\s+"
        r"(?:had\s+(?:they|it|he|she|those|these)\s+not|if\s+(?:they|it|he|she)\s+(?:had\s+not|hadn't|did\s+not|didn't)|"
        r"without\b|otherwise)\b.*",
        "same",
    ),
    (
        # "Are kids with a lot of screen time less likely to be tired than kids without?"
        "correlation",
        rf"(?:is|are)\s+(?P<x>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+likely\s+to\s+(?:be\s+|have\s+|get\s+)?(?P<y>.+?)\s+than\s+(?P<x0>.+)",
        "same",
    ),
    (
        "correlation",
        rf"(?:is|are)\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+likely\s+to\s+(?:be\s+)?(?P<y2>.+?)\s+(?:when|if|among|for|given)\s+(?P<x>.+)",
        "same",
    ),
    (
        # "Is rain more likely on days when people wear sunglasses than on days when they don't?"
        "correlation",
        rf"is\s+(?P<y>.+?)\s+(?P<dir>{_MORE}|{_LESS})\s+(?:common|frequent|likely|probable)\s+(?:on|in|at|for)\s+(?:days|cases|times|weeks|years|months|places|fields|farms)\s+(?:when|where|with|that)\s+(?P<x>.+?)\s+than\s+(?P<x0>.+)",
        "same",
    ),
]

# "Does X directly (not through M) raise the chance of Y?": a question about the total
# effect with a mediator cue asks for the natural direct effect; "... through M" for the
# natural indirect effect. The cue is cut out and the rest read as any other question.
_NOT_THROUGH = (
    r"(?:not\s+(?:going\s+|passing\s+)?(?:through|via)|other\s+than\s+(?:through|via)|"
    r"except\s+(?:through|via)|apart\s+from|leaving\s+aside|aside\s+from|without\s+going\s+through)"
)
_MEDIATOR_CUES: list[tuple[str, str]] = [
    ("nde", rf"\s*\(\s*{_NOT_THROUGH}\s+(?P<m>[^)]+?)\s*\)"),
    ("nde", rf",?\s+{_NOT_THROUGH}\s+(?P<m>[^,]+?)\s*(?=,|$)"),
    ("nde", rf"^{_NOT_THROUGH}\s+(?P<m>[^,]+?)\s*,\s*"),
    (
        "nie",
        r"\s+(?:only\s+)?(?:through|via|by\s+way\s+of|by\s+means\s+of)\s+(?:its\s+effect\s+on\s+)?(?P<m>[^,]+?)\s*(?=,|$)",
    ),
]
_DIRECT = re.compile(r"\s+directly\b|\bdirect\s+(?=effect)", re.I)


def _with_mediator(q: str) -> QuestionForm | None:
    for kind, cue in _MEDIATOR_CUES:
        m = re.search(cue, q, flags=re.I)
        if not m:
            continue
        rest = (q[: m.start()] + " " + q[m.end() :]).strip()
        if kind == "nie" and _DIRECT.search(rest):
            return None  # "directly ... through": not one of the two
        rest = " ".join(_DIRECT.sub(" ", rest).split())
        rest = rest[0].upper() + rest[1:] if rest else rest
        base = _parse_plain(rest) or _parse_more(rest, _LAST_FORMS)
        if base is None or base.kind != "ate":
            return None
        base.kind = kind
        base.slots = {**base.slots, "mediators": _list(m.group("m"))}
        base.slots.pop("counterfactual", None)
        return base
    return None


# "Does X lower Y?", "Does X affect Y in a positive way?": last, after every other form
_LAST_FORMS: list[tuple[str, str, str]] = [
    (
        "ate",
        r"(?:does|do|will|would|can)\s+(?!observing\b|seeing\b)(?P<x>.+?)\s+(?:\w+ly\s+)?affect\s+(?P<y>.+?)\s+in\s+an?\s+(?P<dir>positive|negative)\s+(?:way|manner|direction)",
        "pos",
    ),
    (
        "ate",
        rf"(?:does|do|will|would|can)\s+(?!observing\b|seeing\b)(?P<x>.+)\s+(?P<dir>{UP}|{DOWN})\s+(?!the\s+(?:chance|probability|likelihood|odds|risk)\b)(?P<y>.+)",
        "same",
    ),
]


# "kids without", "machines without one", "days when they don't": the other group, said
# only by its negation (compared with the complement of the first)
_ELLIPTICAL_OTHER = re.compile(
    r"(?:(?:on|in|among|for)\s+)?(?:the\s+)?(?:[\w-]+\s+)?(?:(?:when|where|who|that)\s+)?"
    r"(?:they|it|he|she|those|ones)?\s*(?:without|(?:do|does|did|are|is|were|was|have|has)\s*(?:not|n't))"
    r"(?:\s+(?:one|it|them|any|so))?",
    re.I,
)


def _clean_slot(text: str) -> str:
    t = text.strip().strip(",.;:")
    t = re.sub(
        r"^(?:the\s+)?(?:chance|probability|likelihood|odds|risk)\s+(?:of|that)\s+",
        "",
        t,
        flags=re.I,
    )
    t = re.sub(r"\s*\([^)]*\)\s*$", "", t)
    return t.strip()


def _dir_word(word: str, mode: str) -> str:
    w = word.lower().strip()
    up = (
        bool(re.fullmatch(UP, w, flags=re.I))
        or bool(re.fullmatch(_POS, w, flags=re.I))
        or w
        in (
            "up",
            "positively",
            "more",
            "higher",
            "larger",
            "greater",
            "above",
            "over",
            "greater than",
            "more than",
            "higher than",
        )
    )
    if mode == "causing":
        up = re.fullmatch(_PREVENTING, w, flags=re.I) is None
    if mode == "flip":
        up = not up
    return "up" if up else "down"


def _parse_more(q: str, forms: list[tuple[str, str, str]] | None = None) -> QuestionForm | None:
    for kind, pat, mode in _MORE_FORMS if forms is None else forms:
        m = re.fullmatch(pat, q, flags=re.IGNORECASE)
        if not m:
            continue
        d = {k: _clean_slot(v) for k, v in m.groupdict().items() if v}
        f = QuestionForm(kind, dropped=[d.pop("anyone")] if d.get("anyone") else [])
        x = d.get("x") or d.get("x2") or d.get("g")
        y = d.get("y") or d.get("y2")
        if d.get("y") and d.get("y2") and not d.get("x2"):
            y = f"{d['y']} {d['y2']}"  # "windows ... to be open"
        if kind == "backdoor":
            f.slots = {"treatment": [x], "outcome": [y]}
            if mode == "empty":
                f.methods = ("@empty", "")
            elif "z" in d:
                f.methods = (f"@adjust:{d['z']}", "")
            else:
                f.methods = (d.get("m1", ""), d.get("m2", ""))
            f.direction = "first_worse" if mode == "mistake" else "first_better"
        elif kind == "collider_bias":
            f.slots = {"given": _list(d["c"]), "treatment": [x], "outcome": [y]}
            f.direction = mode
        elif kind == "explaining_away":
            f.slots = {"given": _list(d["c"]), "treatment": [x], "outcome": [y]}
            f.direction = _dir_word(d["dir"], mode)
        elif kind in ("nde", "nie"):
            f.slots = {"treatment": [x], "outcome": [y], "mediators": _list(d["m"])}
            if d.get("x0"):
                f.slots["counterfactual"] = [d["x0"]]
            f.direction = _dir_word(d["dir"], mode)
        elif kind == "ett":
            f.slots = {"treatment": [d["g"]], "outcome": [y]}
            if d.get("cf"):
                f.slots["counterfactual"] = [d["cf"]]
            if mode == "treated_pos":
                # a positive effect for the treated: the outcome less likely had they not been
                f.direction = "down" if _dir_word(d["dir"], "pos") == "up" else "up"
            else:
                f.direction = _dir_word(d["dir"], mode)
        elif kind == "counterfactual":
            f.slots = {"outcome": [y], "treatment": [x], "counterfactual": [d["x0"]]}
            f.direction = "up"
        elif kind == "marginal":
            f.slots = {"outcome": [y]}
            f.direction = (
                "up"
                if re.match(r"(?:more|greater|above|over|higher)", d["dir"], flags=re.I)
                else "down"
            )
        elif kind in ("correlation", "ate"):
            f.slots = {"treatment": [x], "outcome": [y]}
            if d.get("x0") and not _ELLIPTICAL_OTHER.fullmatch(d["x0"]):
                f.slots["counterfactual"] = [d["x0"]]
            f.direction = _dir_word(d.get("dir", "causes"), mode)
        if any(not p for ps in f.slots.values() for p in ps) or _swallowed(f):
            continue
        return f
    return None


# a phrase that still holds "than ..." swallowed the other side of a comparison; a
# treatment or outcome holding "directly" or "through" swallowed a mediator cue
_COMPARES = re.compile(r"\bthan\b", re.I)
_SWALLOWED_CUE = re.compile(r"\b(?:directly|through|via)\b", re.I)


def _swallowed(form: QuestionForm) -> bool:
    return any(
        _COMPARES.search(p) or (slot in ("treatment", "outcome") and _SWALLOWED_CUE.search(p))
        for slot, ps in form.slots.items()
        for p in ps
    )


# "a randomly chosen patient", "a random person": anyone, said of the whole population
_ANYONE_PHRASE = re.compile(
    r"(?:\s*,?\s*(?:for|of|in|among)\s+)?\b(?:a|any)\s+(?:randomly\s+(?:chosen|selected|picked)|random|typical|given)\s+[\w-]+",
    re.I,
)


def _without_anyone(q: str) -> str | None:
    """'Does a randomly chosen patient more likely than not have a cough' -> 'Is have a
    cough more likely than not'; None when the question names no such phrase."""
    if not _ANYONE_PHRASE.search(q):
        return None
    rest = " ".join(_ANYONE_PHRASE.sub(" ", q).split())
    m = re.fullmatch(
        r"(?:does|do|will|would)\s+(?P<a>.*?)\s*(?P<dir>more|less)\s+likely\s+than\s+not\s*(?P<b>.*)",
        rest,
        flags=re.I,
    )
    if m:
        y = " ".join(f"{m.group('a')} {m.group('b')}".split())
        y = re.sub(r"^(?:get|gets|have|has|be|become|develop|suffer\s+from)\s+", "", y, flags=re.I)
        return f"Is {y} {m.group('dir')} likely than not" if y else None
    return rest


# A question said another way than the forms' own: each rewrite keeps the question's
# phrases and changes only its frame; tried when the question as written fits no form.
# (pattern, replacement, the group a rewrite drops as "anyone", or "")
_REFRAMES: list[tuple[re.Pattern[str], str, str]] = [
    # "Looking at the raw numbers, are ...": a lead-in that changes nothing asked
    (
        re.compile(
            r"^(?:looking\s+at\s+the\s+(?:raw\s+)?(?:numbers|data)|in\s+the\s+raw\s+data|"
            r"based\s+on\s+(?:the\s+)?(?:numbers|data)|on\s+these\s+numbers)\s*,\s*(?P<rest>.+)$",
            re.I,
        ),
        r"\g<rest>",
        "",
    ),
    # "Will most staff members get through the season": a majority of anyone
    (
        re.compile(r"^will\s+(?P<s>most\s+(?:[\w-]+\s+)?[\w-]+s)\s+(?P<v>.+)$", re.I),
        r"is \g<v> more likely than not",
        "s",
    ),
    # "Are injuries less common among ...": the forms are written with "is"
    (re.compile(r"^(?:are|were|was)\s+(?P<rest>.+)$", re.I), r"is \g<rest>", ""),
    # "Is a commuter more likely than not to ride a bike" (the subject is anyone)
    (
        re.compile(
            r"^(?:on\s+[^,]+,\s*)?(?:is|are)\s+(?P<s>.+?)\s+(?P<d>more|less)\s+likely\s+than\s+not"
            r"\s+to\s+(?P<v>.+)$",
            re.I,
        ),
        r"is \g<v> \g<d> likely than not",
        "s",
    ),
    # "Does a diner leave a good review more often than not"
    (
        re.compile(
            r"^(?:does|do)\s+(?P<s>(?:a|an|the|each|every)\s+[\w-]+)\s+(?P<v>.+?)\s+"
            r"(?P<d>more|less)\s+often\s+than\s+not$",
            re.I,
        ),
        r"is \g<v> \g<d> likely than not",
        "s",
    ),
    # "would their chance of finding a job have been lower had they not enrolled"
    (
        re.compile(
            r"^(?P<a>.*?\bwould\s+)(?:their|the|its|his|her)\s+(?:chance|probability|likelihood|"
            r"risk|odds)\s+of\s+(?P<y>.+?)\s+have\s+been\s+(?P<d>lower|higher|smaller|greater)"
            r"(?P<b>\s+had\s+.+)$",
            re.I,
        ),
        r"\g<a>\g<y> have been \g<d>__ likely\g<b>",
        "",
    ),
    # "would they have been more likely to set a personal best had they not used it"
    (
        re.compile(
            r"^(?P<a>.*?\bwould\s+)(?:they|he|she|it)\s+have\s+been\s+(?P<d>more|less)\s+likely"
            r"\s+to\s+(?P<y>.+?)(?P<b>\s+had\s+.+)$",
            re.I,
        ),
        r"\g<a>\g<y> have been \g<d> likely\g<b>",
        "",
    ),
    # "had they gone without it": had they not
    (
        re.compile(
            r"^(?P<a>.*?\bhad\s+(?:they|he|she|it))\s+(?:gone|been|done)\s+without\s+(?:it|them|one)$",
            re.I,
        ),
        r"\g<a> not done so",
        "",
    ),
    # "Thinking only about the runners who used a tent: would they ..."
    (
        re.compile(
            r"^(?:thinking\s+(?:only\s+)?(?:about|of)|considering\s+only|looking\s+only\s+at|"
            r"restricting\s+attention\s+to)\s+(?P<g>[^:,]+)[:,]\s*(?P<rest>would\s+.+)$",
            re.I,
        ),
        r"for \g<g>, \g<rest>",
        "",
    ),
    # "Among admitted students, is talent more common among those with connections than
    # among those without"
    (
        re.compile(
            r"^(?P<a>(?:among|within)\s+[^,]+,\s+is\s+.+?\s+(?:more|less))\s+(?:common|likely)\s+"
            r"among\s+those\s+with\s+(?P<x>.+?)\s+than\s+among\s+those\s+without(?:\s+(?:it|them))?$",
            re.I,
        ),
        r"\g<a> likely with \g<x> than with no \g<x>",
        "",
    ),
    # "Among loaves that rose well, is fresh yeast less likely when the kitchen was warm"
    (
        re.compile(
            r"^(?:among|within|for)\s+(?P<c>[^,]+),\s+is\s+(?P<y>.+?)\s+(?P<d>more|less)\s+"
            r"(?:likely|common)\s+(?:when|if)\s+(?P<x>.+)$",
            re.I,
        ),
        r"if we look at \g<c>, does the chance of \g<y> \g<d>__ when \g<x>",
        "",
    ),
]
_COMPARATIVE = {
    "lower__": "less", "smaller__": "less", "higher__": "more", "greater__": "more",
    "more__": "increase", "less__": "decrease",
}  # fmt: skip


def _reframed(q: str) -> list[tuple[str, str | None]]:
    """The question in the forms' own frames (and the phrase each drops as anyone); a
    reframed question may be reframed again by a later rule."""
    out: list[tuple[str, str | None]] = [(q, None)]
    for pattern, replacement, dropped in _REFRAMES:
        for text, was_dropped in list(out):
            m = pattern.match(text)
            if not m:
                continue
            new = re.sub(
                r"\b(\w+__)",
                lambda w: _COMPARATIVE.get(w.group(1).lower(), w.group(1)),
                m.expand(replacement),
            )
            out.append((new, (m.group(dropped) if dropped else None) or was_dropped))
    return out[1:]


def parse_question(question: str) -> QuestionForm | None:
    """The question's form and its phrases, or None when no known form fits."""
    q = " ".join(question.strip().split())
    q = re.sub(r"^(?:question:\s*|q:\s*)", "", q, flags=re.I).rstrip("?.! ").strip()
    form = _parse_written(q)
    if form is not None:
        return form
    for text, dropped in _reframed(q):
        form = _parse_written(text)
        if form is not None:
            if dropped:
                form.dropped.append(_clean_slot(dropped))
            return form
    return None


def _parse_written(q: str) -> QuestionForm | None:
    form = _parse_plain(q) or _with_mediator(q) or _parse_more(q, _LAST_FORMS)
    if form is None and (anyone := _without_anyone(q)) is not None:
        form = _parse_plain(anyone)
        if form is not None and form.kind != "marginal":
            return None  # only a question about the whole population may drop "anyone"
        if form is not None:
            form.dropped += [_clean_slot(m.group(0)) for m in _ANYONE_PHRASE.finditer(q)]
    return form


def _parse_plain(q: str) -> QuestionForm | None:
    more = _parse_more(q)
    if more is not None:
        return more
    for kind, pat in _FORMS:
        m = re.fullmatch(pat, q, flags=re.IGNORECASE)
        if not m:
            continue
        d = {
            k: _clean_slot(v or "") if k not in ("dir", "neg", "m1", "m2") else (v or "").strip()
            for k, v in m.groupdict().items()
        }
        f = QuestionForm(kind)
        if kind == "backdoor":
            f.slots = {"treatment": [d["x"]], "outcome": [d["y"]]}
            f.methods = (d["m1"], d["m2"])
            f.direction = "first_better"
        elif kind == "collider_bias":
            f.slots = {"given": _list(d["c"]), "treatment": [d["x"]], "outcome": [d["y"]]}
            f.direction = "affects" if d["neg"].lower() == "affects" else "not_affects"
        elif kind == "explaining_away":
            f.slots = {"given": _list(d["c"]), "treatment": [d["x"]], "outcome": [d["y"]]}
            f.direction = _direction(d["dir"])
        elif kind in ("nde", "nie"):
            f.slots = {"treatment": [d["x"]], "outcome": [d["y"]], "mediators": _list(d["m"])}
            f.direction = _direction(d["dir"])
        elif kind == "ett":
            f.slots = {"treatment": [d["g"]], "outcome": [d["y"]], "counterfactual": [d["cf"]]}
            f.direction = "up" if d["dir"].lower() == "more" else "down"
        elif kind == "counterfactual":
            f.slots = {"outcome": [d["y"]], "treatment": [d["x"]], "counterfactual": [d["x0"]]}
            f.direction = "up"
        elif kind == "marginal":
            f.slots = {"outcome": [d["y"]]}
            word = d["dir"].lower()
            f.direction = (
                "up"
                if word in ("more", "above", "over")
                or word.startswith(("greater", "more", "higher"))
                else "down"
            )
        elif kind in ("correlation", "ate"):
            f.slots = {"treatment": [d["x"]], "outcome": [d["y"]]}
            f.direction = _direction(d["dir"])
        if any(not p for ps in f.slots.values() for p in ps) or _swallowed(f):
            continue
        return f
    return None
