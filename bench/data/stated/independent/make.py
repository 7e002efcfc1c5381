#!/usr/bin/env python3
"""Generator for independent rewordings of CLadder items and Corr2Cause-style items.

Usage:  python make.py [dev|check|all]

Everything is written by this script with its own templates / word lists and a fixed
random seed.  See README.md for what is varied and how labels are derived and checked.
"""
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict
from itertools import combinations, permutations, product

SRC = '/work/shared/data/cladder'
OUT = '/work/rewordings'
KINDS = ['easy', 'hard', 'anti', 'non', 'det']
SEED = 20240611

# --------------------------------------------------------------------------------------
# loading and parsing the source
# --------------------------------------------------------------------------------------


def load():
    models = {m['model_id']: m for m in json.load(open(f'{SRC}/test-model-meta.json'))}
    items = []
    for k in KINDS:
        for x in json.load(open(f'{SRC}/test-generate-{k}.json')):
            x['_kind'] = k
            x['_file'] = f'test-generate-{k}.json'
            items.append(x)
    return models, items


KEY_RE = re.compile(r'^[pP]\((\w+)(?:\s*\|\s*([\w, ]+))?\)$')


def flatten_given(gi, meta):
    """meta['given_info'] -> list of quantity dicts in the order the source text states them."""
    out = []
    for key, val in gi.items():
        key = key.strip()
        m = re.match(r'^P\((\w+)=1\)$', key)
        if m:
            out.append(dict(kind='marg', var=m.group(1), value=val))
            continue
        m = re.match(r'^P\((\w+)=1, (\w+)=([01])\)$', key)
        if m:
            out.append(dict(kind='joint', var=m.group(1), cond=[(m.group(2), int(m.group(3)))], value=val))
            continue
        if key.startswith('P(Y = 1 | X = 1, '):
            out.append(dict(kind='corr', sub=(meta['collider'], 1), value=val))
            continue
        m = KEY_RE.match(key)
        if not m:
            raise ValueError(key)
        tgt, conds = m.group(1), m.group(2)
        if not conds:
            v = val[0] if isinstance(val, list) else val
            out.append(dict(kind='marg', var=tgt, value=v))
            continue
        cv = [c.strip() for c in conds.split(',')]
        if len(cv) == 1:
            for a in (0, 1):
                out.append(dict(kind='cond', var=tgt, cond=[(cv[0], a)], value=val[a]))
        elif len(cv) == 2:
            for a in (0, 1):
                for b in (0, 1):
                    out.append(dict(kind='cond', var=tgt, cond=[(cv[0], a), (cv[1], b)], value=val[a][b]))
        else:
            raise ValueError(key)
    return out


SENT_RE = re.compile(r'(.*?) is (-?\d+(?:\.\d+)?)(%?)\.(?:\s+|$)')


def parse_numbers(x):
    """Attach the source's stated number strings to the structured quantities; None if they do not align."""
    qs = flatten_given(x['meta']['given_info'], x['meta'])
    sents = SENT_RE.findall(x['given_info'])
    if len(sents) != len(qs):
        return None
    for q, (prefix, num, pct) in zip(qs, sents):
        if q['kind'] == 'corr':
            if pct:
                return None
            if abs(float(num) - q['value']) > 0.0051:
                return None
            q['num'] = num
        else:
            if not pct or '.' in num:
                return None
            if int(num) != round(q['value'] * 100):
                # stated number must be the rounded value
                if abs(int(num) - q['value'] * 100) > 0.5001:
                    return None
            q['num'] = num
        q['prefix'] = prefix
    return qs


def extract_pop_phrases(x, qs, pop):
    """Population phrases the source used ('husbands that set the alarm'), keyed by model+conditions."""
    mid = x['meta']['model_id']
    fam = defaultdict(list)
    for q in qs:
        if q['kind'] == 'cond':
            m = re.match(r'^For (.+), the probability of (.+)$', q['prefix'])
            if m:
                fam[(q['var'], tuple(v for v, _ in q['cond']))].append((tuple(q['cond']), m.group(1)))
        if q['kind'] == 'corr':
            m = re.match(r'^For (.+), the correlation between (.+)$', q['prefix'])
            if m:
                pop.setdefault((mid, (q['sub'],)), m.group(1))
    for _, lst in fam.items():
        phrases = [p for _, p in lst]
        if len(set(phrases)) != len(phrases):
            continue          # source phrases ambiguous (e.g. both values rendered the same) - do not use
        for conds, p in lst:
            pop.setdefault((mid, conds), p)
    qq = x['question']
    me = x['meta']
    if me['query_type'] in ('collider_bias', 'exp_away'):
        m = re.match(r'^If we look at (.+?), does', qq)
        if m:
            pop.setdefault((mid, ((me['collider'], 1),)), m.group(1))
    if me['query_type'] == 'ett':
        m = re.match(r'^For (.+?), would it be', qq)
        if m:
            pop.setdefault((mid, (('X', 1),)), m.group(1))


# --------------------------------------------------------------------------------------
# recomputing every estimand from the *stated* (rounded) numbers, to double-check labels
# --------------------------------------------------------------------------------------


def table(qs):
    """quantities -> dict of lookups using the stated numbers"""
    t = {}
    for q in qs:
        v = float(q['num']) / (1 if q['kind'] == 'corr' else 100)
        if q['kind'] == 'marg':
            t[('m', q['var'])] = v
        elif q['kind'] == 'joint':
            t[('j', q['var'], q['cond'][0])] = v
        elif q['kind'] == 'cond':
            t[('c', q['var'], tuple(q['cond']))] = v
        else:
            t[('r',)] = v
    return t


def recompute(x, qs):
    """Return the estimand computed from the stated numbers (float) or None if not computable."""
    me = x['meta']
    qt, g = me['query_type'], me['graph_id']
    t = table(qs)
    keys = tuple(me['given_info'].keys()) if isinstance(me['given_info'], dict) else None

    def c(var, *conds):
        return t[('c', var, tuple(conds))]
    try:
        if qt in ('ate', 'ett', 'nie') and keys == ('p(Y | X)',):
            return c('Y', ('X', 1)) - c('Y', ('X', 0))
        if qt == 'ate' and keys == ('p(Y | V1, X)', 'p(V1)'):
            p1 = t[('m', 'V1')]
            return sum(pv * (c('Y', ('V1', v), ('X', 1)) - c('Y', ('V1', v), ('X', 0)))
                       for v, pv in ((0, 1 - p1), (1, p1)))
        if qt == 'ett' and keys == ('p(Y | V1, X)', 'p(V1)'):
            # what a reader can compute from the stated numbers (CLadder's own reasoning does the same)
            p1 = t[('m', 'V1')]
            return sum(pv * (c('Y', ('V1', v), ('X', 1)) - c('Y', ('V1', v), ('X', 0)))
                       for v, pv in ((0, 1 - p1), (1, p1)))
        if qt == 'ett' and keys == ('p(Y | X, V3)', 'p(V3 | X)'):
            if g == 'diamondcut':
                q1 = c('V3', ('X', 1))
                return sum(pv * (c('Y', ('X', 1), ('V3', v)) - c('Y', ('X', 0), ('V3', v)))
                           for v, pv in ((0, 1 - q1), (1, q1)))
            if g == 'frontdoor':
                q1, q0 = c('V3', ('X', 1)), c('V3', ('X', 0))
                return sum(c('Y', ('X', 1), ('V3', v)) * (d1 - d0)
                           for v, d1, d0 in ((0, 1 - q1, 1 - q0), (1, q1, q0)))
        if qt in ('ate', 'nie') and keys == ('p(V3 | X)', 'p(Y | X, V3)', 'p(X)'):
            q1, q0, px = c('V3', ('X', 1)), c('V3', ('X', 0)), t[('m', 'X')]
            tot = 0
            for v, d1, d0 in ((0, 1 - q1, 1 - q0), (1, q1, q0)):
                inner = sum(c('Y', ('X', h), ('V3', v)) * ph for h, ph in ((0, 1 - px), (1, px)))
                tot += (d1 - d0) * inner
            return tot
        if qt == 'ate' and keys == ('p(Y | V2)', 'p(X | V2)'):
            den = c('X', ('V2', 1)) - c('X', ('V2', 0))
            if den == 0:
                return None
            return (c('Y', ('V2', 1)) - c('Y', ('V2', 0))) / den
        if qt in ('nie', 'nde') and keys == ('p(Y | X, V2)', 'p(V2 | X)'):
            m1, m0 = c('V2', ('X', 1)), c('V2', ('X', 0))
            if qt == 'nie':
                return sum(c('Y', ('X', 0), ('V2', v)) * (d1 - d0)
                           for v, d1, d0 in ((0, 1 - m1, 1 - m0), (1, m1, m0)))
            return sum(d0 * (c('Y', ('X', 1), ('V2', v)) - c('Y', ('X', 0), ('V2', v)))
                       for v, d0 in ((0, 1 - m0), (1, m0)))
        if qt in ('nie', 'nde') and keys == ('p(Y | X, V3)', 'p(V3 | X, V2)', 'p(V2)'):
            p2 = t[('m', 'V2')]
            tot = 0
            for v in (0, 1):
                for k, pk in ((0, 1 - p2), (1, p2)):
                    s1 = c('V3', ('X', 1), ('V2', k))
                    s0 = c('V3', ('X', 0), ('V2', k))
                    d1 = s1 if v else 1 - s1
                    d0 = s0 if v else 1 - s0
                    if qt == 'nie':
                        tot += c('Y', ('X', 0), ('V3', v)) * (d1 - d0) * pk
                    else:
                        tot += (c('Y', ('X', 1), ('V3', v)) - c('Y', ('X', 0), ('V3', v))) * d0 * pk
            return tot
        if qt == 'marginal':
            px = t[('m', 'X')]
            return px * c('Y', ('X', 1)) + (1 - px) * c('Y', ('X', 0)) - 0.5
        if qt == 'correlation':
            px = t[('m', 'X')]
            if px in (0, 1):
                return None
            return t[('j', 'Y', ('X', 1))] / px - t[('j', 'Y', ('X', 0))] / (1 - px)
        if qt == 'exp_away':
            # sign of P(Y|X=1,V3=1) - P(Y|V3=1) equals sign of P(Y|X=1,V3=1) - P(Y|X=0,V3=1)
            return c('Y', ('X', 1), ('V3', 1)) - c('Y', ('X', 0), ('V3', 1))
    except KeyError:
        return None
    return None


# --------------------------------------------------------------------------------------
# the fact F behind each source question (True/False), derived from the source answer;
# every question we write asks F (sense '+') or its negation (sense '-')
# --------------------------------------------------------------------------------------


def source_fact(x):
    me = x['meta']
    qt = me['query_type']
    ans = x['answer'] == 'yes'
    pol = me.get('polarity')
    if qt in ('ate', 'nde', 'nie', 'correlation', 'exp_away', 'marginal'):
        return ans if pol else not ans
    if qt == 'ett':
        # polarity True asks 'more likely to see Y1 if X had been 0' -> yes iff ETT < 0
        return (not ans) if pol else ans
    if qt == 'collider_bias':
        return ans if pol else not ans      # F = 'X affects Y'
    if qt == 'backadj':
        return ans                          # F = 'method 1 (source order) is the right one'
    if qt == 'det-counterfactual':
        return ans if pol == 1 else not ans  # F = 'Y = 1 under the intervention'
    raise ValueError(qt)


def gt_fact(x, models):
    """Independent derivation of F from the generator's numeric ground truth."""
    me = x['meta']
    qt = me['query_type']
    gt = me.get('groundtruth')
    if qt in ('ate', 'nde', 'nie', 'correlation', 'exp_away', 'ett'):
        return gt > 0
    if qt == 'marginal':
        return gt > 0.5
    if qt == 'collider_bias':
        return False
    if qt == 'backadj':
        return not me['flipped']
    if qt == 'det-counterfactual':
        return det_solve(models[me['model_id']], me['given_info'], me['action']) == 1
    raise ValueError(qt)


# --------------------------------------------------------------------------------------
# deterministic (det) models
# --------------------------------------------------------------------------------------


def det_functions(model):
    """params -> {child: (parents, fn_name)} for deterministic nodes; raises if unknown shape."""
    fns = {}
    for key, val in model['params'].items():
        m = KEY_RE.match(key.strip())
        tgt, conds = m.group(1), m.group(2)
        if not conds:
            continue
        parents = [c.strip() for c in conds.split(',')]
        flat = []

        def fl(v):
            if isinstance(v, list):
                for y in v:
                    fl(y)
            else:
                flat.append(v)
        fl(val)
        if any(v not in (0, 1) for v in flat):
            raise ValueError('non-deterministic')
        n = len(parents)
        rows = list(product((0, 1), repeat=n))
        if flat == [int(all(r)) for r in rows]:
            fn = 'and'
        elif flat == [int(any(r)) for r in rows]:
            fn = 'or'
        elif n == 1 and flat == [1, 0]:
            fn = 'not'
        else:
            raise ValueError('unknown function %s %s' % (key, flat))
        if n == 1 and fn in ('and', 'or'):
            fn = 'id'
        fns[tgt] = (parents, fn)
    return fns


def det_solve(model, evidence, action):
    fns = det_functions(model)
    vals = {'X': action}
    for k, v in evidence.items():
        vals[k] = v
    for _ in range(10):
        for ch, (ps, fn) in fns.items():
            if ch == 'X' or ch in vals:
                continue
            if all(p in vals for p in ps):
                a = [vals[p] for p in ps]
                vals[ch] = {'and': int(all(a)), 'or': int(any(a)), 'not': 1 - a[0], 'id': a[0]}[fn]
    return vals.get('Y')


# --------------------------------------------------------------------------------------
# wording helpers
# --------------------------------------------------------------------------------------


def cap(s):
    return s[0].upper() + s[1:] if s else s


CONTRACT = [("don't", 'do not'), ("doesn't", 'does not'), ("didn't", 'did not'), ("aren't", 'are not'),
            ("isn't", 'is not'), ("haven't", 'have not'), ("hasn't", 'has not'), ("won't", 'will not'),
            ("weren't", 'were not'), ("wasn't", 'was not')]


def vary_neg(rng, s):
    """swap contractions <-> full negations (meaning unchanged)"""
    r = rng.random()
    if r < 0.35:
        for a, b in CONTRACT:
            s = re.sub(r'\b%s\b' % re.escape(a), b, s)
    elif r < 0.55:
        for a, b in CONTRACT:
            s = re.sub(r'\b%s\b' % re.escape(b), a, s)
    return s


class Num:
    """formats one integer-percent number; a story picks one style or mixes them"""
    STYLES = ['pct', 'dec', 'in100', 'percent', 'outof']

    def __init__(self, rng):
        self.rng = rng
        r = rng.random()
        if r < 0.45:
            self.fixed = rng.choice(['pct', 'pct', 'dec', 'dec', 'percent'])
        else:
            self.fixed = None

    def style(self):
        return self.fixed or self.rng.choice(self.STYLES)

    def fmt(self, k, style=None):
        st = style or self.style()
        k = int(k)
        if st == 'pct':
            return f'{k}%'
        if st == 'dec':
            return f'{k / 100:.2f}'
        if st == 'in100':
            return f'{k} in 100'
        if st == 'percent':
            return f'{k} percent'
        if st == 'outof':
            return f'{k} out of 100'
        raise ValueError(st)

    def pct_like(self, k):
        st = self.fixed if self.fixed in ('pct', 'percent') else self.rng.choice(['pct', 'percent'])
        return self.fmt(k, st)


PREAMBLES = [
    'Imagine a self-contained, hypothetical world with only the following conditions, and without any unmentioned factors or causal relationships:',
    'Consider a hypothetical, closed world in which only the causal relations below exist; there are no other factors.',
    'Suppose we are in an imaginary world where nothing matters except what is described here.',
    'Think of a made-up world. These are the only causal relationships in it, and no unmentioned factors play a role.',
    'In a fictional setting with no hidden factors beyond those named:',
    'Assume a closed system: apart from what is stated, there are no other causes or variables.',
]

VERB_OUT = ['has a direct effect on', 'directly affects', 'directly influences', 'is a direct cause of',
            'has a causal influence on', 'causally affects', 'affects', 'influences']
VERB_SINGLE = ['is one of the causes of', 'leads to changes in', 'influences', 'affects', 'has an effect on',
               'is a cause of', 'has a direct effect on']


PLURAL_NAMES = {'other unobserved factors', 'unobserved confounders', 'earthquakes', 'freckles', 'brown eyes',
                'broken bones', 'pre-conditions', 'respiratory issues', 'hospital costs'}


def is_plural(name):
    return name.lower() in PLURAL_NAMES


def conj(vp, plural):
    """conjugate a 3rd-person-singular verb phrase for a plural subject"""
    if not plural:
        return vp
    w = vp.split(' ')
    i = 1 if w[0] in ('directly', 'causally') else 0
    irregular = {'has': 'have', 'is': 'are', 'does': 'do'}
    if w[i] in irregular:
        w[i] = irregular[w[i]]
    elif w[i].endswith('es') and w[i][:-2].endswith(('ss', 'sh', 'ch', 'x')):
        w[i] = w[i][:-2]
    elif w[i].endswith('s'):
        w[i] = w[i][:-1]
    return ' '.join(w)


def join_and(xs):
    xs = list(xs)
    if len(xs) == 1:
        return xs[0]
    if len(xs) == 2:
        return f'{xs[0]} and {xs[1]}'
    return ', '.join(xs[:-1]) + f', and {xs[-1]}'


def graph_text(rng, model):
    vm = model['variable_mapping']
    edges = [e.split('->') for e in model['structure'].split(',')]
    name = lambda v: vm[f'{v}name']
    unobs = re.findall(r'([^.:]*) is unobserved\.', model['background'])
    lower_names = {vm[k].lower(): vm[k] for k in vm if k.endswith('name')}
    unobs = [lower_names.get(u.strip().lower(), u.strip()) for u in unobs]
    style = rng.choice(['by_source', 'by_source', 'by_target', 'depends', 'arrows', 'bullets', 'edgelist',
                        'single', 'single', 'both_affect'])
    parts = []
    children = defaultdict(list)
    parents = defaultdict(list)
    for a, b in edges:
        children[a].append(b)
        parents[b].append(a)
    order = []
    for a, b in edges:
        if a not in order:
            order.append(a)
    if style == 'by_source':
        verb = rng.choice(VERB_OUT)
        for a in order:
            parts.append(f'{cap(name(a))} {conj(verb, is_plural(name(a)))} {join_and(name(b) for b in children[a])}.')
        text = ' '.join(parts)
    elif style in ('by_target', 'depends', 'both_affect'):
        tord = []
        for a, b in edges:
            if b not in tord:
                tord.append(b)
        rng.shuffle(tord)
        for b in tord:
            ps = [name(a) for a in parents[b]]
            if style == 'depends':
                v = rng.choice(['depends directly on', 'depends on', 'is directly determined by'])
                parts.append(f'{cap(name(b))} {conj(v, is_plural(name(b)))} {join_and(ps)}.')
            elif style == 'both_affect' and len(ps) >= 2:
                both = 'both' if len(ps) == 2 else 'all'
                v = rng.choice(['affect', 'influence', 'have a direct effect on'])
                parts.append(f'{cap(join_and(ps))} {both} {v} {name(b)}.')
            else:
                if len(ps) == 1:
                    v = rng.choice(['is directly affected by', 'is caused by', 'is influenced by'])
                    parts.append(f'{cap(name(b))} {conj(v, is_plural(name(b)))} {ps[0]}.')
                else:
                    pl = is_plural(name(b))
                    v = rng.choice(['The direct causes of {b} are {ps}.',
                                    '{B} are directly affected by {ps}.' if pl else '{B} is directly affected by {ps}.',
                                    '{B} have {n} direct causes: {ps}.' if pl else '{B} has {n} direct causes: {ps}.'])
                    parts.append(v.format(b=name(b), B=cap(name(b)), ps=join_and(ps),
                                          n={2: 'two', 3: 'three'}[len(ps)]))
        text = ' '.join(parts)
    elif style == 'arrows':
        es = edges[:]
        rng.shuffle(es)
        lead = rng.choice(['Causal graph:', 'The causal structure is', 'Causal links (cause -> effect):',
                           'The causal diagram has these arrows:'])
        text = f'{lead} ' + ', '.join(f'{name(a)} -> {name(b)}' for a, b in es) + '.'
    elif style == 'bullets':
        es = edges[:]
        rng.shuffle(es)
        v = rng.choice(['causes', 'directly affects', 'has a direct effect on', 'influences'])
        lead = rng.choice(['The causal relationships are:', 'Causal structure:', 'What causes what:'])
        text = lead + '\n' + '\n'.join(f'- {name(a)} {conj(v, is_plural(name(a)))} {name(b)}' for a, b in es) + '\n'
    elif style == 'edgelist':
        es = edges[:]
        rng.shuffle(es)
        lead = rng.choice(['Direct causal edges (cause, effect):', 'List of direct causal effects (from, to):'])
        text = lead + ' ' + '; '.join(f'({name(a)}, {name(b)})' for a, b in es) + '.'
    else:  # single edges with mixed verbs
        es = edges[:]
        rng.shuffle(es)
        for a, b in es:
            parts.append(f'{cap(name(a))} {conj(rng.choice(VERB_SINGLE), is_plural(name(a)))} {name(b)}.')
        text = ' '.join(parts)
    for u in unobs:
        if is_plural(u):
            opts = [f'{cap(u)} are unobserved.', f'{cap(u)} are not observed.', f'We cannot observe {u}.',
                    f'Note that {u} are hidden (unobserved).']
        else:
            opts = [f'{cap(u)} is unobserved.', f'{cap(u)} is not observed.', f'We cannot observe {u}.',
                    f'Note that {u} is hidden (unobserved).', f'{cap(u)} is a latent variable that nobody measures.']
        sep = '\n' if text.endswith('\n') or '\n- ' in text else ' '
        text = text.rstrip('\n') + sep + rng.choice(opts)
    return text.strip()


def glossary(rng, model, vars_):
    vm = model['variable_mapping']
    out = []
    for v in vars_:
        if f'{v}name' not in vm:
            continue
        pl = is_plural(vm[f'{v}name'])
        t = rng.choice(['{N} %s be "{a}" or "{b}".' % 'can', '{N} %s two values: {a} / {b}.' % conj('takes', pl),
                        'Possible values of {n}: {a}, {b}.'])
        out.append(t.format(N=cap(vm[f'{v}name']), n=vm[f'{v}name'], a=vm[f'{v}1'], b=vm[f'{v}0']))
    return ' '.join(out)


# ---- probability sentences ----------------------------------------------------------


class Phr:
    def __init__(self, rng, model, pop):
        self.rng, self.model, self.pop = rng, model, pop
        self.vm = model['variable_mapping']
        self.use_pop = rng.random() < 0.55

    def val(self, v, b):
        return self.vm[f'{v}{b}']

    def vm_conds(self, conds, joiner=' and '):
        return joiner.join(self.val(v, b) for v, b in conds)

    def popph(self, conds):
        p = self.pop.get((self.model['model_id'], tuple(conds)))
        if p and self.use_pop:
            return vary_neg(self.rng, p)
        return None

    def for_phrase(self, conds):
        p = self.popph(conds)
        if p:
            return p
        return self.rng.choice(['cases with {c}', 'the group with {c}', 'those with {c}']).format(
            c=self.vm_conds(conds))


def cond_sentence(rng, ph, num, q, tgt):
    c = q['cond']
    n = q['num']
    forp = ph.for_phrase(c)
    vmc = ph.vm_conds(c, rng.choice([' and ', ' and ', ', ']))
    t = rng.randrange(9)
    if t == 0:
        return f'For {forp}, the probability of {tgt} is {num.fmt(n)}.'
    if t == 1:
        return f'Among {forp}, the chance of {tgt} is {num.fmt(n)}.'
    if t == 2:
        return f'Given {vmc}, {tgt} has probability {num.fmt(n)}.'
    if t == 3:
        return f'If {vmc}, then {tgt} happens with probability {num.fmt(n)}.'
    if t == 4:
        return f'When {vmc}, the probability of {tgt} is {num.fmt(n)}.'
    if t == 5:
        return f'The probability of {tgt} given {vmc} is {num.fmt(n)}.'
    if t == 6:
        return f'There is a {num.pct_like(n)} chance of {tgt} for {forp}.'
    if t == 7:
        return f'{cap(tgt)} occurs with probability {num.fmt(n)} among {forp}.'
    return f'Conditional on {vmc}, the chance of {tgt} is {num.fmt(n)}.'


def marg_sentence(rng, ph, num, q):
    v = ph.val(q['var'], 1)
    n = q['num']
    t = rng.randrange(6)
    if t == 0:
        return f'The overall probability of {v} is {num.fmt(n)}.'
    if t == 1:
        return f'Overall, {v} has a probability of {num.fmt(n)}.'
    if t == 2:
        return f'{cap(v)} occurs in {num.pct_like(n)} of cases overall.'
    if t == 3:
        return f'The base rate of {v} is {num.fmt(n)}.'
    if t == 4:
        return f'In the population as a whole, the chance of {v} is {num.fmt(n)}.'
    return f'Without conditioning on anything, {v} has probability {num.fmt(n)}.'


def joint_sentence(rng, ph, num, q):
    y = ph.val(q['var'], 1)
    xv = ph.val(*q['cond'][0])
    n = q['num']
    t = rng.randrange(5)
    if t == 0:
        return f'The probability of {xv} and {y} is {num.fmt(n)}.'
    if t == 1:
        return f'The joint probability of {xv} together with {y} is {num.fmt(n)}.'
    if t == 2:
        return f'{cap(xv)} and {y} occur together with probability {num.fmt(n)}.'
    if t == 3:
        return f'In {num.pct_like(n)} of all cases, we see both {xv} and {y}.'
    return f'The chance of observing {xv} along with {y} is {num.fmt(n)}.'


def corr_sentence(rng, ph, q):
    sub = [q['sub']]
    forp = ph.for_phrase(sub)
    x1, y1 = ph.val('X', 1), ph.val('Y', 1)
    r = q['num']
    t = rng.randrange(4)
    if t == 0:
        return f'For {forp}, the correlation between {x1} and {y1} is {r}.'
    if t == 1:
        return f'Among {forp}, {x1} and {y1} have a correlation of {r}.'
    if t == 2:
        return f'Looking only at {forp}, the correlation of {x1} with {y1} equals {r}.'
    return f'Within the subgroup of {ph.val(*q["sub"])}, {x1} and {y1} are correlated with coefficient {r}.'


def numbers_text(rng, model, pop, qs):
    """render the stated quantities; returns text"""
    ph = Phr(rng, model, pop)
    num = Num(rng)
    mode = rng.choice(['sent', 'sent', 'sent', 'grouped', 'bullets'])
    # group conditional quantities by family (target + conditioning variables)
    fams = []
    famidx = {}
    for q in qs:
        if q['kind'] == 'cond':
            key = (q['var'], tuple(v for v, _ in q['cond']))
        else:
            key = (q['kind'], id(q))
        if key not in famidx:
            famidx[key] = len(fams)
            fams.append([])
        fams[famidx[key]].append(q)
    if rng.random() < 0.5:
        rng.shuffle(fams)
    lines = []
    for fam in fams:
        q0 = fam[0]
        if q0['kind'] != 'cond':
            for q in fam:
                if q['kind'] == 'marg':
                    s = marg_sentence(rng, ph, num, q)
                elif q['kind'] == 'joint':
                    s = joint_sentence(rng, ph, num, q)
                else:
                    s = corr_sentence(rng, ph, q)
                lines.append(s)
            continue
        tgt = ph.val(q0['var'], 1)
        fam = fam[:]
        if rng.random() < 0.3:
            rng.shuffle(fam)
        if mode == 'grouped' and len(fam) >= 2:
            lead = rng.choice(['The probability of {t} is', 'The chance of {t} is', '{T} has probability'])
            bits = [f'{num.fmt(q["num"])} for {ph.for_phrase(q["cond"])}' for q in fam]
            lines.append(lead.format(t=tgt, T=cap(tgt)) + ' ' + join_and(bits) + '.')
        elif mode == 'bullets':
            lead = rng.choice(['Probability of {t}:', 'Chance of {t}, by group:', '{T} rates:'])
            lines.append(lead.format(t=tgt, T=cap(tgt)))
            for q in fam:
                c = ph.vm_conds(q['cond'], rng.choice([' and ', ', ']))
                lines.append(f'- {c}: {num.fmt(q["num"])}')
        else:
            for q in fam:
                lines.append(cond_sentence(rng, ph, num, q, tgt))
    return join_lines(lines)


def join_lines(lines):
    """sentences are joined by spaces; bullet items and list headers go on their own lines"""
    txt = ''
    prev_list = False
    for ln in lines:
        ln = ln.strip('\n')
        is_list = ln.startswith('- ') or ln.endswith(':') or '\n' in ln
        if not txt:
            txt = ln
        elif is_list or prev_list:
            txt += '\n' + ln
        else:
            txt += ' ' + ln
        prev_list = ln.startswith('- ') or '\n- ' in ln
    return txt


# --------------------------------------------------------------------------------------
# questions: each returns (question, sense) with sense '+' asking F and '-' asking not F
# --------------------------------------------------------------------------------------


def q_ate(rng, vm, ph, me):
    X1, X0, Y1, Xn, Yn = vm['X1'], vm['X0'], vm['Y1'], vm['Xname'], vm['Yname']
    opts = [
        (f'Will {X1} increase the chance of {Y1}?', '+'),
        (f'Would making {X1} happen raise the probability of {Y1}?', '+'),
        (f'If we intervened to bring about {X1} instead of {X0}, would {Y1} become more likely?', '+'),
        (f'Does {Xn} have a positive causal effect on the chance of {Y1}?', '+'),
        (f'Is the average causal effect of {X1} (versus {X0}) on {Y1} positive?', '+'),
        (f'If everyone were switched from {X1} to {X0}, would {Y1} become less common?', '+'),
        (f'Will {X1} decrease the chance of {Y1}?', '-'),
        (f'Would forcing {X1} rather than {X0} reduce the probability of {Y1}?', '-'),
        (f'Does {Xn} causally make {Y1} less likely?', '-'),
        (f'Is the average causal effect of {X1} on the probability of {Y1} negative?', '-'),
        (f'If everyone were switched from {X1} to {X0}, would {Y1} become more common?', '-'),
        (f'Would intervening to set {Xn} to {X0} instead of {X1} increase the chance of {Y1}?', '-'),
    ]
    return rng.choice(opts)


def q_ett(rng, vm, ph, me):
    X1, X0, Y1, Xn = vm['X1'], vm['X0'], vm['Y1'], vm['Xname']
    P1 = ph.for_phrase([('X', 1)])
    opts = [
        (f'For {P1}, would it be more likely to see {Y1} if {X0} had been the case instead?', '-'),
        (f'Consider the cases that actually had {X1}. Had they had {X0} instead, would {Y1} have been more likely?', '-'),
        (f'For {P1}, does {X1} lower their chance of {Y1} compared with what {X0} would have given them?', '-'),
        (f'For {P1}, would {Y1} have been less likely under {X0}?', '+'),
        (f'Among those who actually have {X1}, did {X1} raise the chance of {Y1} compared with the counterfactual {X0}?', '+'),
        (f'Is the effect of {X1} on {Y1} for the treated (those who actually have {X1}) positive?', '+'),
        (f'Looking at {P1}: in the counterfactual scenario with {X0} instead, would {Y1} have been less likely?', '+'),
    ]
    return rng.choice(opts)


def med_names(vm, me):
    return join_and(vm[f'{m}name'] for m in me['mediators'])


def q_nie(rng, vm, ph, me):
    Xn, Yn, Y1, X1 = vm['Xname'], vm['Yname'], vm['Y1'], vm['X1']
    M = med_names(vm, me)
    opts = [
        (f'Does {Xn} positively affect {Yn} through {M}?', '+'),
        (f'Is the indirect effect of {Xn} on {Yn} via {M} positive?', '+'),
        (f'Considering only the pathway that runs through {M}, does {Xn} increase the chance of {Y1}?', '+'),
        (f'Is the natural indirect effect of {X1} on {Y1}, mediated by {M}, greater than zero?', '+'),
        (f'Does {Xn} negatively affect {Yn} through {M}?', '-'),
        (f'Is the natural indirect effect of {Xn} on {Yn} through {M} negative?', '-'),
        (f'Through its effect on {M}, does {Xn} reduce the chance of {Y1}?', '-'),
    ]
    return rng.choice(opts)


def q_nde(rng, vm, ph, me):
    Xn, Yn, Y1, X1, X0 = vm['Xname'], vm['Yname'], vm['Y1'], vm['X1'], vm['X0']
    M = med_names(vm, me)
    opts = [
        (f'If we disregard the mediation effect through {M}, would {Xn} positively affect {Yn}?', '+'),
        (f'Is the natural direct effect of {X1} on {Y1} (the part not passing through {M}) positive?', '+'),
        (f'Setting aside the pathway via {M}, does {Xn} directly make {Y1} more likely?', '+'),
        (f'Ignoring the effect that goes through {M}, does {Xn} have a negative direct effect on {Yn}?', '-'),
        (f'If {M} is kept at the level it would naturally take under {X0}, would switching to {X1} lower the chance of {Y1}?', '-'),
        (f'Is the direct effect of {Xn} on {Yn}, not mediated by {M}, negative?', '-'),
    ]
    return rng.choice(opts)


def q_marginal(rng, vm, ph, me):
    Y1, Y0 = vm['Y1'], vm['Y0']
    opts = [
        (f'Is {Y1} more likely than {Y0} overall?', '+'),
        (f'Overall, is {Y1} more likely than not?', '+'),
        (f'Does {Y1} happen in more than half of all cases?', '+'),
        (f'Is the overall probability of {Y1} greater than 50%?', '+'),
        (f'Is {Y0} more likely than {Y1} overall?', '-'),
        (f'Is {Y1} less likely than {Y0} overall?', '-'),
        (f'Is the overall chance of {Y1} below one half?', '-'),
    ]
    return rng.choice(opts)


def q_correlation(rng, vm, ph, me):
    X1, X0, Y1 = vm['X1'], vm['X0'], vm['Y1']
    opts = [
        (f'Is the chance of {Y1} larger when we observe {X1}?', '+'),
        (f'Are {X1} and {Y1} positively correlated?', '+'),
        (f'Is {Y1} more common among cases with {X1} than among cases with {X0}?', '+'),
        (f'Does observing {X1} (rather than {X0}) make {Y1} more probable?', '+'),
        (f'Is {Y1} less likely when {X1} is observed than when {X0} is observed?', '-'),
        (f'Is {Y1} more common among cases with {X0} than among cases with {X1}?', '-'),
        (f'Are {X1} and {Y1} negatively associated?', '-'),
    ]
    return rng.choice(opts)


def q_exp_away(rng, vm, ph, me):
    X1, X0, Y1 = vm['X1'], vm['X0'], vm['Y1']
    col = me['collider']
    P = ph.for_phrase([(col, 1)])
    opts = [
        (f'If we look at {P}, does the chance of {Y1} go up when we learn of {X1}?', '+'),
        (f'Among {P}, does learning of {X1} make {Y1} more likely?', '+'),
        (f'Restricting attention to {vm[col + "1"]}, is {Y1} more likely with {X1} than with {X0}?', '+'),
        (f'Among {P}, does observing {X1} lower the probability of {Y1}?', '-'),
        (f'Restricting attention to {vm[col + "1"]}, is {Y1} less likely with {X1} than with {X0}?', '-'),
    ]
    return rng.choice(opts)


def q_collider(rng, vm, ph, me):
    Xn, Yn, X1 = vm['Xname'], vm['Yname'], vm['X1']
    pl = is_plural(Xn)
    col = me['collider']
    P = ph.for_phrase([(col, 1)])
    opts = [
        (f'If we look at {P}, does it mean that {X1} affects {Yn}?', '+'),
        (f'Does the correlation among {P} show that {Xn} {conj("has", pl)} a causal effect on {Yn}?', '+'),
        (f'Can we conclude from the correlation among {P} that {Xn} {conj("causes", pl)} changes in {Yn}?', '+'),
        (f'Is it true that {Xn} {conj("has", pl)} no causal effect on {Yn}, even though they are correlated among {P}?', '-'),
        (f'Given this correlation among {P}, should we still say that {Xn} {conj("does", pl)} not affect {Yn}?', '-'),
    ]
    return rng.choice(opts)


def backadj_render(rng, vm, me, src_fact):
    """returns (method_text, question, answer)"""
    Xn, Yn = vm['Xname'], vm['Yname']
    pl = is_plural(Xn)
    sets = me['given_info']
    good = sets[0] if src_fact else sets[1]
    V = (sets[0] or sets[1])[0]
    Vn = vm[f'{V}name']
    adjust_good = V in good

    def desc(s):
        if s:
            return rng.choice([f'compare {Yn} across levels of {Xn} separately within each group of {Vn}, then combine',
                               f'look at how {Xn} {conj("correlates", pl)} with {Yn} case by case according to {Vn}',
                               f'stratify by {Vn} and study the {Xn}-{Yn} association within each stratum'])
        return rng.choice([f'look directly at how {Xn} {conj("correlates", pl)} with {Yn} in general',
                           f'use the overall association between {Xn} and {Yn}, without splitting by anything',
                           f'compare {Yn} across levels of {Xn} in the whole population, without adjustment'])
    order = [sets[0], sets[1]]
    if rng.random() < 0.5:
        order = order[::-1]
    names = rng.choice([('Method 1', 'Method 2'), ('Approach A', 'Approach B'), ('Method A', 'Method B')])
    mtext = f'{names[0]}: {desc(order[0])}. {names[1]}: {desc(order[1])}.'
    m1_good = order[0] == good
    t = rng.randrange(6)
    if t == 0:
        return mtext, f'To understand how {Xn} {conj("affects", pl)} {Yn}, is it more correct to use {names[0]} than {names[1]}?', m1_good
    if t == 1:
        return mtext, f'To estimate the causal effect of {Xn} on {Yn}, is {names[1]} the better choice?', not m1_good
    if t == 2:
        return mtext, f'Is {names[0]} a valid way to identify the effect of {Xn} on {Yn}, while {names[1]} is not?', m1_good
    if t == 3:
        return '', f'To estimate how {Xn} {conj("affects", pl)} {Yn}, should we adjust for {Vn} (i.e. look at the association case by case according to {Vn})?', adjust_good
    if t == 4:
        return '', f'Would it be a mistake to condition on {Vn} when estimating the causal effect of {Xn} on {Yn}?', not adjust_good
    return '', f'Is the plain, unadjusted correlation between {Xn} and {Yn} the right quantity for judging the effect of {Xn} on {Yn}?', good == []


# ---- det ---------------------------------------------------------------------------------


def det_mech_text(rng, model):
    vm = model['variable_mapping']
    fns = det_functions(model)
    val = lambda v, b: vm[f'{v}{b}']
    # order children topologically as in params order
    sents = []
    for ch, (ps, fn) in fns.items():
        c1, c0 = val(ch, 1), val(ch, 0)
        t = rng.randrange(3)
        if fn == 'id':
            p1, p0 = val(ps[0], 1), val(ps[0], 0)
            sents.append([f'{cap(p1)} causes {c1}.',
                          f'{cap(c1)} happens exactly when {p1} happens.',
                          f'If {p1}, then {c1}; if {p0}, then {c0}.'][t])
        elif fn == 'not':
            p1, p0 = val(ps[0], 1), val(ps[0], 0)
            sents.append([f'{cap(p1)} causes {c0}.',
                          f'{cap(c1)} happens exactly when {p0} is the case.',
                          f'If {p1}, then {c0}; if {p0}, then {c1}.'][t])
        elif fn == 'and':
            ps1 = [val(p, 1) for p in ps]
            sents.append([f'{cap(join_and(ps1))} together cause {c1}.',
                          f'{cap(c1)} happens if and only if {join_and(ps1)} all hold.' if len(ps) > 2 else
                          f'{cap(c1)} happens if and only if both {join_and(ps1)} hold.',
                          f'{cap(c1)} requires {join_and(ps1)}; if any of these is missing, the result is {c0}.'][t])
        elif fn == 'or':
            ps1 = [val(p, 1) for p in ps]
            ors = ' or '.join(ps1)
            sents.append([f'{cap(ors)} causes {c1}.',
                          f'{cap(c1)} happens if and only if at least one of {join_and(ps1)} holds.',
                          f'Any one of {join_and(ps1)} is enough to bring about {c1}; if none of them holds, the result is {c0}.'][t])
    lead = rng.choice(['We know the following mechanisms.', 'The mechanisms are deterministic:', 'We know that:', ''])
    return (lead + ' ' + ' '.join(sents)).strip()


def det_evidence_text(rng, model, ev):
    vm = model['variable_mapping']
    if not ev:
        return ''
    vals = [vm[f'{v}{b}'] for v, b in ev.items()]
    return rng.choice(['We observe {e}.', 'In this particular case, we know there is {e}.',
                       'Observed: {e}.', 'It is known that this case has {e}.']).format(e=join_and(vals))


def q_det(rng, vm, me):
    a = me['action']
    Xa, Xb = vm[f'X{a}'], vm[f'X{1 - a}']
    Y1, Y0, Xn = vm['Y1'], vm['Y0'], vm['Xname']
    tpl = rng.choice([
        'Would {Y} occur if {Xa} instead of {Xb}?',
        'Suppose {Xname} were set to {Xa} instead of {Xb}. Would the outcome be {Y}?',
        'Had it been {Xa} rather than {Xb}, would we see {Y}?',
        'Under an intervention that makes it {Xa} (instead of {Xb}), does {Y} result?',
    ])
    if rng.random() < 0.5:
        return tpl.format(Y=Y1, Xa=Xa, Xb=Xb, Xname=Xn), '+'
    return tpl.format(Y=Y0, Xa=Xa, Xb=Xb, Xname=Xn), '-'


QFUN = dict(ate=q_ate, ett=q_ett, nie=q_nie, nde=q_nde, marginal=q_marginal, correlation=q_correlation,
            exp_away=q_exp_away, collider_bias=q_collider)


# --------------------------------------------------------------------------------------
# building one reworded item
# --------------------------------------------------------------------------------------


def build(rng, x, models, pop, qs):
    me = x['meta']
    qt = me['query_type']
    model = models[me['model_id']]
    vm = model['variable_mapping']
    F = source_fact(x)
    ph = Phr(rng, model, pop)
    parts_pre = []
    pre = rng.random()
    if pre < 0.45:
        parts_pre.append(rng.choice(PREAMBLES))
    g = graph_text(rng, model)
    gl = glossary(rng, model, ['X', 'V1', 'V2', 'V3', 'Y']) if rng.random() < 0.25 else ''
    extra_q = ''
    if qt == 'det-counterfactual':
        body = det_mech_text(rng, model)
        ev = det_evidence_text(rng, model, me['given_info'])
        body = (body + ' ' + ev).strip()
        question, sense = q_det(rng, vm, me)
        ans = F if sense == '+' else not F
    elif qt == 'backadj':
        mtext, question, ans = backadj_render(rng, vm, me, F)
        body = mtext
    else:
        body = numbers_text(rng, model, pop, qs)
        question, sense = QFUN[qt](rng, vm, ph, me)
        ans = F if sense == '+' else not F
    graph_after = rng.random() < 0.25 and body
    blocks = parts_pre[:]
    if graph_after:
        blocks += [b for b in (gl, body, g) if b]
    else:
        blocks += [b for b in (g, gl, body) if b]
    story = join_lines([b.strip() for b in blocks])
    story = re.sub(r'[ \t]+\n', '\n', story).strip()
    answer = 'yes' if ans else 'no'
    flipped = answer != x['answer']
    return dict(story=story, question=question, answer=answer, flipped=flipped)


# --------------------------------------------------------------------------------------
# Corr2Cause-style
# --------------------------------------------------------------------------------------


def all_dags(n):
    import networkx as nx
    pairs = list(combinations(range(n), 2))
    dags = []
    for states in product((0, 1, 2), repeat=len(pairs)):
        G = nx.DiGraph()
        G.add_nodes_from(range(n))
        for (a, b), s in zip(pairs, states):
            if s == 1:
                G.add_edge(a, b)
            elif s == 2:
                G.add_edge(b, a)
        if nx.is_directed_acyclic_graph(G):
            dags.append(G)
    return dags


def dsep(G, a, b, z):
    import networkx as nx
    f = getattr(nx, 'is_d_separator', None) or nx.d_separated
    return f(G, {a}, {b}, set(z))


def ci_signature(G, n):
    """frozenset of (a,b,Z) with a<b that are d-separated"""
    sig = []
    for a, b in combinations(range(n), 2):
        others = [v for v in range(n) if v not in (a, b)]
        for k in range(len(others) + 1):
            for z in combinations(others, k):
                if dsep(G, a, b, z):
                    sig.append((a, b, z))
    return frozenset(sig)


def relations(G, a, b):
    import networkx as nx
    out = {}
    out['parent'] = G.has_edge(a, b)
    out['child'] = G.has_edge(b, a)
    anc = nx.has_path(G, a, b)
    out['ancestor'] = anc and not G.has_edge(a, b)
    des = nx.has_path(G, b, a)
    out['descendant'] = des and not G.has_edge(b, a)
    others = [c for c in G.nodes if c not in (a, b)]
    out['collider'] = any(G.has_edge(a, c) and G.has_edge(b, c) for c in others)
    out['confounder'] = any(G.has_edge(c, a) and G.has_edge(c, b) for c in others)
    return out



REL_TEMPLATES = {
    'parent': ['{A} directly causes {B}.', '{A} is a direct cause of {B}.',
               'There is a direct causal link from {A} to {B}.', '{A} directly affects {B}.'],
    'child': ['{A} is directly caused by {B}.', '{B} is a direct cause of {A}.',
              '{A} is a direct effect of {B}.'],
    'ancestor': ['{A} causes something else which causes {B}.', '{A} is a cause of {B}, but not a direct one.',
                 '{A} influences {B} only indirectly, through some other variable.'],
    'descendant': ['{B} causes something else which causes {A}.', '{A} is caused by {B}, but not directly.',
                   '{A} is an indirect effect of {B}.'],
    'collider': ['{A} and {B} together cause some other variable.', 'There exists a variable that is a common effect of {A} and {B}.',
                 '{A} and {B} have a common effect among the other variables.'],
    'confounder': ['There exists at least one confounder (common cause) of {A} and {B}.',
                   'Some other variable directly causes both {A} and {B}.', '{A} and {B} share a common cause.'],
}

LETTERS = 'ABCDEF'
NAME_SETS = [
    ['rainfall', 'soil moisture', 'crop yield', 'fertilizer use', 'pest count'],
    ['stress', 'sleep quality', 'blood pressure', 'caffeine intake', 'heart rate'],
    ['ad spending', 'web traffic', 'sales', 'brand awareness', 'price level'],
    ['study time', 'test score', 'motivation', 'class attendance', 'tutor support'],
    ['temperature', 'ice cream sales', 'pool visits', 'sunburn cases', 'humidity'],
    ['gene expression', 'protein level', 'enzyme activity', 'cell growth', 'hormone level'],
    ['wind speed', 'wave height', 'ferry delays', 'fuel use', 'passenger count'],
    ['zorb', 'quil', 'mevan', 'tusk', 'prell'],
]


def premise_text(rng, n, names, sig):
    corr_tpl = ['{a} correlates with {b}.', '{a} and {b} are associated.', '{a} is statistically dependent on {b}.',
                'There is a correlation between {a} and {b}.', '{a} and {b} are correlated.']
    ind_tpl = ['{a} is independent of {b}.', '{a} and {b} are statistically independent.',
               '{a} is statistically independent of {b}.']
    ci_tpl = ['{a} and {b} are independent given {z}.', 'Conditioning on {z} makes {a} and {b} independent.',
              '{a} is independent of {b} once we condition on {z}.', 'Given {z}, {a} and {b} are statistically independent.',
              '{a} and {b} become independent when {z} {isare} held fixed.']
    vlist = join_and(names)
    intro = rng.choice([
        f'Suppose there is a closed system of {n} variables, {vlist}. All the statistical relations among these {n} variables are as follows:',
        f'Consider a closed system made of exactly {n} variables: {vlist}. The following list contains every statistical relation among them.',
        f'We study {n} variables, {vlist}, with no other variables involved. These are all of their statistical relations:',
    ])
    sents = []
    marg_ind = {(a, b) for a, b, z in sig if not z}
    pairs = list(combinations(range(n), 2))
    for a, b in pairs:
        x, y = (names[a], names[b]) if rng.random() < 0.7 else (names[b], names[a])
        if (a, b) in marg_ind:
            sents.append(('ind', rng.choice(ind_tpl).format(a=x, b=y)))
        else:
            sents.append(('corr', rng.choice(corr_tpl).format(a=x, b=y)))
    cis = []
    for a, b, z in sorted(sig):
        if not z:
            continue
        x, y = (names[a], names[b]) if rng.random() < 0.7 else (names[b], names[a])
        cis.append(rng.choice(ci_tpl).format(a=x, b=y, z=join_and(names[i] for i in z),
                                          isare='are' if len(z) > 1 else 'is'))
    if rng.random() < 0.3:
        rng.shuffle(sents)
    body = [cap(s) for _, s in sents]
    if cis and rng.random() < 0.5:
        s = cis[0]
        if s.startswith(('Conditioning', 'Given')):
            s = s[0].lower() + s[1:]
        cis[0] = 'However, ' + s
    cis = [cap(s) for s in cis]
    tail = '' if rng.random() < 0.5 else rng.choice([' No other independences hold.',
                                                      ' Any pair not said to be independent (under a given conditioning set) is dependent.'])
    return intro + ' ' + ' '.join(body + cis) + tail


class DagIndex:
    """all DAGs over n labelled nodes, grouped by their exact set of d-separation statements"""
    def __init__(self, n):
        self.n = n
        self.dags = all_dags(n)
        self.by_sig = defaultdict(list)
        self.sig_of = []
        for i, G in enumerate(self.dags):
            s = ci_signature(G, n)
            self.sig_of.append(s)
            self.by_sig[s].append(i)

    def label(self, sig, a, b, rel):
        cls = self.by_sig[sig]
        return all(relations(self.dags[i], a, b)[rel] for i in cls)


def random_dag(rng, n):
    import networkx as nx
    order = list(range(n))
    rng.shuffle(order)
    p = rng.choice([0.3, 0.45, 0.6])
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < p:
                G.add_edge(order[i], order[j])
    return G


def make_corr2cause(split, count, seed, indexes, used):
    rng = random.Random(seed)
    rows = []
    rel_quota = {r: count // 6 + (1 if i < count % 6 else 0) for i, r in enumerate(REL_TEMPLATES)}
    rel_yes = Counter()
    rel_n = Counter()
    tries = 0
    rels = list(REL_TEMPLATES)
    while sum(rel_n.values()) < count:
        # the relation that is furthest behind its quota, and the label it needs (about 45% yes)
        rel = min(rels, key=lambda r: (rel_n[r] / rel_quota[r], rels.index(r)))
        want = rel_yes[rel] < 0.45 * (rel_n[rel] + 1)
        found = None
        for attempt in range(5000):
            tries += 1
            if rel in ('collider', 'confounder'):
                n = rng.choice([3, 4, 4, 5, 5, 5])
            else:
                n = rng.choice([2, 3, 3, 4, 4, 4, 5, 5, 5])
            idx = indexes[n]
            G = random_dag(rng, n)
            sig = ci_signature(G, n)
            pairs = list(permutations(range(n), 2))
            if rel in ('collider', 'confounder'):
                pairs = [(a, b) for a, b in pairs if a < b]
            rng.shuffle(pairs)
            cands = [(a, b, rel, idx.label(sig, a, b, rel)) for a, b in pairs]
            pref = [c for c in cands if c[3] == want]
            if pref:
                found = (n, sig, rng.choice(pref))
                break
            if attempt > 3000 and cands:
                found = (n, sig, rng.choice(cands))
                break
        n, sig, (a, b, rel, lab) = found
        if rng.random() < 0.35:
            ns = rng.choice(NAME_SETS)[:]
            rng.shuffle(ns)
            names = ns[:n]
        else:
            names = list(LETTERS[:n])
        key = (n, tuple(sorted(sig)), tuple(names), a, b, rel)
        pkey = (n, tuple(sorted(sig)), tuple(names))
        if pkey in used:
            continue
        used.add(pkey)
        premise = premise_text(rng, n, names, sig)
        claim = cap(rng.choice(REL_TEMPLATES[rel]).format(A=names[a], B=names[b]))
        rel_n[rel] += 1
        rel_yes[rel] += lab
        rows.append(dict(id=f'{split}-c2c-{len(rows) + 1:04d}', premise=premise, claim=claim,
                         answer='yes' if lab else 'no', relation=rel, n_vars=n))
    os.makedirs(f'{OUT}/{split}', exist_ok=True)
    with open(f'{OUT}/{split}/corr2cause.jsonl', 'w') as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + '\n')
    return rows


# --------------------------------------------------------------------------------------
# pipeline
# --------------------------------------------------------------------------------------


def prepare(models, items):
    """parse + validate every source item; returns list of usable items and drop statistics"""
    pop = {}
    usable = []
    drops = Counter()
    parsed = {}
    for x in items:
        qt = x['meta']['query_type']
        if qt in ('backadj', 'det-counterfactual'):
            parsed[id(x)] = []
            continue
        qs = parse_numbers(x)
        if qs is None:
            drops['numbers_do_not_align'] += 1
            continue
        parsed[id(x)] = qs
        extract_pop_phrases(x, qs, pop)
    for x in items:
        if id(x) not in parsed:
            continue
        me = x['meta']
        qt = me['query_type']
        F = source_fact(x)
        try:
            G = gt_fact(x, models)
        except ValueError:
            drops['det_unknown_function'] += 1
            continue
        if F != G:
            drops['source_answer_vs_groundtruth'] += 1
            continue
        if qt not in ('backadj', 'det-counterfactual', 'collider_bias'):
            v = recompute(x, parsed[id(x)])
            if v is None:
                drops['not_recomputable'] += 1
                continue
            if v == 0 or (v > 0) != F:
                drops['stated_numbers_disagree_with_label'] += 1
                continue
        x['_qs'] = parsed[id(x)]
        usable.append(x)
    return usable, pop, drops


# planned number of items per split: per kind, per query type
PLAN_NONDET = dict(ate=8, ett=7, nie=7, nde=6, marginal=7, correlation=7, backadj=7, collider_bias=5, exp_away=5)
PLAN_DET = 60


def split_models(models):
    rng = random.Random(SEED)
    by = defaultdict(list)
    for mid, m in models.items():
        by[(m['graph_id'])].append(mid)
    dev, check = set(), set()
    for g in sorted(by):
        ids = sorted(by[g])
        rng.shuffle(ids)
        for i, mid in enumerate(ids):
            (dev if i % 2 == 0 else check).add(mid)
    return dev, check


def select(usable, model_ids, seed):
    rng = random.Random(seed)
    chosen = []
    pools = defaultdict(list)
    for x in usable:
        if x['meta']['model_id'] in model_ids:
            pools[(x['_kind'], x['meta']['query_type'])].append(x)
    for kind in KINDS:
        plan = {'det-counterfactual': PLAN_DET} if kind == 'det' else PLAN_NONDET
        for qt, n in plan.items():
            pool = pools[(kind, qt)]
            # round-robin over graphs so that every graph kind is covered
            byg = defaultdict(list)
            for x in pool:
                byg[x['meta']['graph_id']].append(x)
            for g in byg:
                rng.shuffle(byg[g])
            gs = sorted(byg)
            rng.shuffle(gs)
            got = []
            while len(got) < n and any(byg[g] for g in gs):
                for g in gs:
                    if byg[g] and len(got) < n:
                        got.append(byg[g].pop())
            chosen += got
    return chosen


def write_cladder(split, chosen, models, pop, seed):
    rng = random.Random(seed)
    rows = []
    for i, x in enumerate(chosen):
        me = x['meta']
        r = build(rng, x, models, pop, x.get('_qs', []))
        rows.append(dict(id=f'{split}-cladder-{i + 1:04d}', source_question_id=x['question_id'],
                         source_file=x['_file'], story=r['story'], question=r['question'],
                         answer=r['answer'], query_type=me['query_type'], rung=me['rung'],
                         story_kind=x['_kind'], graph_id=me['graph_id'], flipped=r['flipped']))
    rng.shuffle(rows)
    os.makedirs(f'{OUT}/{split}', exist_ok=True)
    with open(f'{OUT}/{split}/cladder.jsonl', 'w') as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + '\n')
    return rows


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else 'all'
    models, items = load()
    usable, pop, drops = prepare(models, items)
    print('usable', len(usable), 'dropped', dict(drops))
    dev, check = split_models(models)
    assert not dev & check
    for split, mids, seed in (('dev', dev, SEED + 1), ('check', check, SEED + 2)):
        if which not in ('all', split):
            continue
        chosen = select(usable, mids, seed)
        rows = write_cladder(split, chosen, models, pop, seed + 100)
        print(split, len(rows), Counter(r['story_kind'] for r in rows), Counter(r['answer'] for r in rows),
              'flipped', sum(r['flipped'] for r in rows))
    if 'noc2c' in sys.argv:
        return
    indexes = {n: DagIndex(n) for n in (2, 3, 4, 5)}
    used = set()
    for split, seed in (('dev', SEED + 11), ('check', SEED + 12)):
        rows = make_corr2cause(split, 150, seed, indexes, used)
        if which not in ('all', split):
            continue
        print(split, 'corr2cause', len(rows), Counter((r['relation'], r['answer']) for r in rows),
              Counter(r['n_vars'] for r in rows))


if __name__ == '__main__':
    main()
