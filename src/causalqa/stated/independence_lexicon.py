"""The words of stated (in)dependences and causal claims, and the tokenizer that finds them.

Both readers (`independence_reader`) work the same way: a sentence is cut into tokens —
the **mentions** of the known variable names (longest first, case-insensitive; a
one-letter name only as that capital letter, a whole word), and the phrases of one small
lexicon per reader (relation words, negations, conditioning markers, list separators,
function words). Whatever is left over is an unknown word: a sentence that names
variables and has one is refused rather than read by guesswork. The readers then work
on the token sequence, so the order of the parts does not matter ("Given B, A and C are
independent", "A and C are independent given B", "Conditioning on B makes A and C
independent" give the same tokens up to order).

    >>> kinds(tokenize("However, A is independent of C given B.", ("A", "B", "C"), PREMISE))
    ['filler', 'name', 'filler', 'indep', 'filler', 'name', 'given', 'name']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# -- the premise lexicon -------------------------------------------------------------------
# Each entry: (kind, regex). Within one combined pattern Python takes the leftmost match
# and, at one position, the first alternative that matches, so longer phrases come first.
_NEG = (
    r"(?:does|do|did|is|are|was|were|has|have|had|can|could|would|should)n['’]t|cannot|"
    r"not|never|none|no"
)
_INDEP_SIGNS = r"⫫|⊥⊥|⊥|_\|\|_|\\perp|\\indep|\\independent"
_DEP_SIGNS = r"⫫̸|⊥̸|not\s*(?:⫫|⊥⊥|⊥)|/⫫|/⊥|\\not\\perp|\\nindep"
_LEADS = (
    r"however|moreover|furthermore|in addition|additionally|besides|also|further|finally|"
    r"lastly|meanwhile|similarly|likewise|then|next|on the other hand|in contrast|by contrast|"
    r"in fact|indeed|note that|notice that|we (?:also )?(?:know|find|see|observe|note) that|"
    r"it is (?:also )?(?:known|true|the case) that|it (?:also )?holds that|"
    r"(?:the )?(?:data|measurements|observations) (?:show|shows|suggest|indicate|reveal) that|"
    r"we have that|first|second|third|fourth|fifth|\d+[.)]|[-*•·]"
)
PREMISE: tuple[tuple[str, str], ...] = (
    ("filler", _LEADS),
    (
        "empty",
        r"nothing(?: at all)?|the empty set|∅|\{\s*\}|no (?:other )?variables?(?: at all)?|"
        r"without conditioning(?: on anything)?",
    ),
    (
        "known",
        r"(?:is|are|being|was|were|gets?|becomes?)\s+(?:(?:also|all|both|jointly)\s+)?"
        r"(?:known|observed|measured|given|held (?:fixed|constant)|kept (?:fixed|constant)|"
        r"fixed|constant|controlled for|adjusted for|conditioned (?:on|upon)|accounted for|"
        r"taken into account)",
    ),
    ("fixed", r"(?:held|kept) (?:fixed|constant)|fixed|constant|known|observed"),
    (
        "given",
        r"given(?: that we know| that)?(?: the values? of)?|"
        r"conditional(?:ly)? (?:on|upon)|(?:conditioned|conditioning) (?:on|upon)|"
        r"(?:we )?condition(?:s|ed)? (?:on|upon)|"
        r"(?:we )?(?:control|controls|controlling|controlled|adjust|adjusts|adjusting|adjusted|"
        r"account|accounting) for|stratif(?:y|ying|ied) (?:on|by)|"
        r"(?:we )?(?:know|observe|learn|fix|hold|keep) the values? of|"
        r"holding|keeping|fixing|knowing(?: the values? of)?|"
        r"within (?:the )?(?:levels|strata|each level|each stratum) of|\||"
        r"(?<=separated )by",  # "d-separated by B"
    ),
    ("makes", r"makes?|made|renders?|rendered|leaves|leave"),
    ("dep", _DEP_SIGNS),
    ("indep", _INDEP_SIGNS),
    (
        "indep",
        r"d-separated|independen(?:t|ce|ces|cies|cy)|uncorrelated|unassociated|unrelated|"
        r"unlinked|decorrelated",
    ),
    (
        "dep",
        r"d-connected|correlat(?:es|ed|e|ions?|ing)|co-?vari?(?:es|ed|y|ance|ation)|"
        r"associat(?:ed|es|e|ions?)|dependen(?:t|ce|cy|cies)|depends?|related|relationship|"
        r"linked|link|connected|connection",
    ),
    ("neg", _NEG),
    ("pairwise", r"pairwise"),
    ("mutual", r"mutually|jointly"),
    ("pronoun", r"they|both of them|the two(?: variables)?|these two(?: variables)?|this pair"),
    ("conj", r"but|while|whereas|although|though|yet"),
    ("sep", r",|and|&|as well as"),
    (
        "filler",
        r"is|are|was|were|be|been|being|becomes?|became|remains?|stays?|turns? out to be|"
        r"seems? to be|appears? to be|there|exists?|holds?|"
        r"a|an|the|of|from|with|to|on|upon|between|among|in|for|each other|one another|both|"
        r"statistically|conditionally|marginally|unconditionally|probabilistically|"
        r"positively|negatively|strongly|weakly|significantly|linearly|at all|"
        r"statistical|significant|positive|negative|strong|weak|linear|"
        r"variables?|nodes?|we|once|when|whenever|if|after|as soon as|that|it|this|do|does|"
        r"(?:true|the case) that|shows?|exhibits?|displays?|has|have|there['’]s",
    ),
)

# -- the claim lexicon ---------------------------------------------------------------------
_THIRD_DET = r"(?:(?:at least one|one or more|some|another|any|a|an|one|the|exactly one)\s+)"
_THIRD_ADJ = (
    r"(?:(?:other|third|further|additional|intermediate|intermediary|mediating|different|"
    r"separate|single|common|same|shared)\s+)"
)
_ROLE_DET = r"(?:(?:a|an|its|the|one of its|their|one of their)\s+)"
CLAIM: tuple[tuple[str, str], ...] = (
    # ", but not a direct one" / "but not directly": the claim is the indirect relation,
    # so this "not" negates nothing.
    (
        "inneg",
        r"(?:,\s*|(?:but|though|although|yet|and)\s+)+(?:only\s+)?(?:not|never)\s+"
        r"(?:(?:a|an|the)\s+)?(?:direct(?:ly)?|immediate(?:ly)?|parent|child)"
        r"(?:\s+(?:one|cause|effect|parent|child|link|edge|relationship))?",
    ),
    (
        "collider",
        r"colliders?|common (?:effects?|child(?:ren)?|consequences?|outcomes?)|"
        r"shared (?:effects?|child(?:ren)?)|joint (?:effects?|child(?:ren)?)|"
        r"(?:share|shares|sharing) (?:(?:a|an|one|some|at least one)\s+)?(?:(?:direct|common)\s+)?"
        r"(?:effects?|child(?:ren)?)(?!\s+(?:of|on))",
    ),
    (
        "confounder",
        r"confounders?|confounded|confounding(?: variables?| factors?)?|"
        r"common (?:causes?|parents?|drivers?)|shared (?:causes?|parents?)|joint causes?|"
        r"(?:share|shares|sharing) (?:(?:a|an|one|some|at least one)\s+)?(?:(?:direct|common)\s+)?"
        r"(?:causes?|parents?)(?!\s+(?:of|for))",
    ),
    ("as_passive_direct", rf"as {_ROLE_DET}?(?:(?:direct|immediate) causes?|parents?)"),
    ("as_passive_indirect", rf"as {_ROLE_DET}?(?:indirect causes?|ancestors?)"),
    ("as_passive", rf"as {_ROLE_DET}?causes?"),
    ("as_active_direct", rf"as {_ROLE_DET}?(?:(?:direct|immediate) effects?|child(?:ren)?)"),
    ("as_active_indirect", rf"as {_ROLE_DET}?(?:indirect effects?|descendants?)"),
    ("as_active", rf"as {_ROLE_DET}?effects?"),
    ("active_indirect", r"ancestors?(?:\s+(?:of|for))?|upstream of"),
    ("passive_indirect", r"descendants?(?:\s+of)?|downstream of"),
    ("active_direct", r"parents?\s+(?:of|for)|->|→|⟶|=>"),
    ("passive_direct", r"child(?:ren)?\s+of|<-|←|⟵"),
    (
        "passive",
        r"(?:caused|affected|influenced|driven|determined|produced|impacted|generated|"
        r"brought about)\s+by|(?:effects?|consequences?|results?|outcomes?|products?)\s+of|"
        r"results? from|stems? from|due to",
    ),
    (
        "active",
        r"(?:causes?|determinants?|drivers?|sources?)\s+(?:of|for|behind)|"
        r"(?:effects?|influences?|impacts?)\s+(?:on|upon)|"
        r"causes|cause|caused|causing|affects?|affected|affecting|influences?|influenced|"
        r"influencing|drives?|determines?|produces?|impacts?|leads? to|gives? rise to|"
        r"brings? about|is responsible for",
    ),
    ("indirect", r"(?:only\s+)?(?:indirect(?:ly)?|through|via|by way of)|mediated|in turn"),
    ("direct", r"direct(?:ly)?|immediate(?:ly)?|edges?|arrows?|arcs?"),
    (
        "third",
        rf"{_THIRD_DET}?{_THIRD_ADJ}*(?:variables?|nodes?|factors?|quantit(?:y|ies))|"
        r"something(?:\s+else)?|some(?:thing)? other",
    ),
    ("neg", _NEG),
    ("from", r"from"),
    ("to", r"to|into|onto"),
    ("sep", r",|and|&"),
    (
        "filler",
        r"(?:is|does|do|can|could) (?:it|we|one) (?:true|the case|correct|valid|conclude|"
        r"infer|deduce|say)(?: that)?|is it (?:true|the case|correct|valid) that|"
        r"(?:hypothesis|claim|statement|question)\s*:|i\.\s?e\.,?|e\.\s?g\.,?|that is,?|"
        r"(?:true|the case) that|"
        r"there|is|are|was|were|be|been|exists?|that|which|who|both|together|jointly|"
        r"the|a|an|at least|one|some|of|between|for|among|by|in|in common|shared by|"
        r"has|have|had|shares?|does|do|did|can|could|it|we|conclude|infer|deduce|follows?|"
        r"true|correct|valid|really|also|indeed|actually|whether|causal(?:ly)?|links?|"
        r"connections?|paths?|relationships?|others?|among the others",
    ),
)

# Words after a capital "A" that show it is the article ("A correlation exists …", "A
# third variable causes …"), not the variable A.
_ARTICLE_NEXT = re.compile(
    r"^(?:(?:statistically|highly|very|fairly|quite|strongly|weakly|moderately)\s+)*"
    r"(?:correlation|association|dependence|dependency|link|connection|relationship|"
    r"relation|statistical|significant|positive|negative|strong|weak|clear|direct|common|"
    r"third|variable|node|confounder|collider|causal|path|shared|joint|single|further|"
    r"closed|system|new|similar|different|certain|possible|hidden|latent)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    end: int
    name: str | None = None  # the variable a "name" token mentions


def _name_pattern(names: tuple[str, ...]) -> str:
    parts = []
    for name in sorted(names, key=len, reverse=True):
        words = [re.escape(w) for w in name.split()]
        body = r"\s+".join(words)
        if len(name) == 1 and name.isalpha():
            # One letter is a name only as written ("A", not the article "a").
            body = f"(?-i:{body})"
        parts.append(body)
    return "|".join(parts)


@lru_cache(maxsize=512)
def _compiled(names: tuple[str, ...], lexicon: tuple[tuple[str, str], ...]):
    groups = []
    if names:
        groups.append(rf"(?P<name>(?<![\w-])(?:{_name_pattern(names)})(?:['’]s)?(?![\w-]))")
    # A capital letter alone may be a variable the text has not declared.
    groups.append(r"(?P<letter>(?<![\w-])(?-i:[A-Z])(?![\w'’-]))")
    for i, (_kind, pattern) in enumerate(lexicon):
        # Whole words where the phrase starts or ends with a letter; signs ("⫫", "|",
        # ",") may touch their neighbours ("A⫫C").
        groups.append(rf"(?P<k{i}>(?:(?<![\w-])|(?=\W))(?:{pattern})(?:(?<=\W)|(?![\w-])))")
    groups.append(r"(?P<word>[\w][\w'’-]*)")
    groups.append(r"(?P<punct>\S)")
    keys = {_key(n): n for n in names}
    return re.compile("|".join(groups), re.IGNORECASE), keys


@lru_cache(maxsize=8192)
def _key(name: str) -> str:
    """A name as compared: case, spacing and a possessive do not count."""
    return re.sub(r"['’]s$", "", re.sub(r"\s+", " ", name.strip()).casefold())


def tokenize(
    text: str,
    names: tuple[str, ...],
    lexicon: tuple[tuple[str, str], ...],
    article_before_unknown: bool = False,
) -> list[Token]:
    """The tokens of `text`: mentions of `names`, the phrases of `lexicon`, and any other
    word as ``word`` (punctuation the lexicon does not know is dropped).

    A capital letter that is not one of `names` is a ``letter`` token (a variable the text
    has not declared). A capital "A" — a name or not — is the article when the next word
    is one a noun phrase starts with ("A correlation exists between B and C", "A third
    variable causes …"; `_ARTICLE_NEXT`) or, with `article_before_unknown`, any word
    outside the lexicon ("A total of four variables …")."""
    pattern, keys = _compiled(tuple(names), lexicon)
    kinds_by_group = {f"k{i}": kind for i, (kind, _) in enumerate(lexicon)}
    tokens: list[Token] = []
    for match in pattern.finditer(text):
        group = match.lastgroup
        value = match.group(0)
        if group == "punct":
            continue
        if group == "name":
            tokens.append(Token("name", value, match.start(), match.end(), keys[_key(value)]))
        elif group == "letter":
            tokens.append(Token("filler" if value == "I" else "letter", value, *match.span()))
        elif group == "word":
            tokens.append(Token("word", value, match.start(), match.end()))
        else:
            tokens.append(Token(kinds_by_group[group], value, match.start(), match.end()))
    for i, token in enumerate(tokens[:-1]):
        if token.text not in ("A", "a") or token.kind not in ("name", "letter"):
            continue
        following = tokens[i + 1]
        if following.text[:1].islower() and (
            _ARTICLE_NEXT.match(text[token.end :].lstrip())
            or (article_before_unknown and following.kind == "word")
        ):
            tokens[i] = Token("filler", token.text, token.start, token.end)
    return tokens


def kinds(tokens: list[Token]) -> list[str]:
    return [t.kind for t in tokens]


def unknown_words(tokens: list[Token]) -> list[str]:
    """Runs of adjacent unknown words (and undeclared capital letters), as written."""
    runs: list[list[Token]] = []
    for i, token in enumerate(tokens):
        if token.kind not in ("word", "letter"):
            continue
        if runs and tokens[i - 1].kind in ("word", "letter") and runs[-1][-1] is tokens[i - 1]:
            runs[-1].append(token)
        else:
            runs.append([token])
    return [" ".join(t.text for t in run) for run in runs]
