"""Held-out paraphrase sets for the question templates.

Written on 2026-11-22 by an independent writer who did not see the QA engine
(`causalqa.qa`) nor the `PARAPHRASES` dict in `qa_data.py`; only the template ids,
meanings and slots of `TEMPLATES` were known to the writer.

- `DEV_PARAPHRASES`: 6 wordings per template id, free to use while developing the engine.
- `TEST_PARAPHRASES`: 8 wordings per template id, held out for final evaluation only.
  TEST_PARAPHRASES must never be used for tuning, prompts, few-shot libraries or any
  other development of the engine.

The two sets are disjoint. Placeholders are ``{X}``, ``{Y}`` (variables), ``{T}`` (a
treatment), ``{S}`` (a subject id) and ``{unit}``/``{Unit}`` (the subject noun), and each
wording carries exactly the slots of its template (``{unit}``/``{Unit}`` optional).
"""

DEV_PARAPHRASES: dict[str, tuple[str, ...]] = {
    "connectivity": (
        "Does {X} have a causal effect on {Y}, directly or indirectly?",
        "Is {Y} caused by {X}, either directly or through other variables?",
        "would changing {X} change {Y}?",
        "Tell me whether {X} causally affects {Y} (yes or no).",
        "Is there a causal path from {X} to {Y}?",
        "Does {X} drive {Y} in any way?",
    ),
    "paths": (
        "Which variables mediate the effect of {X} on {Y}?",
        "List the mediators between {X} and {Y}.",
        "what are the intermediate nodes on the causal paths from {X} to {Y}?",
        "Via which factors does {X} affect {Y}?",
        "Name the variables that lie on the causal paths from {X} to {Y}.",
        "Through what intermediaries is the influence of {X} on {Y} transmitted?",
    ),
    "parents": (
        "What are the direct causes of {X}?",
        "Which variables have a direct effect on {X}?",
        "list the parents of {X} in the causal graph",
        "Tell me the immediate drivers of {X}.",
        "Which nodes point directly into {X}?",
        "By which variables is {X} directly influenced?",
    ),
    "children": (
        "What are the direct effects of {X}?",
        "Which variables does {X} directly influence?",
        "list the children of {X} in the causal graph",
        "Tell me which variables are immediately downstream of {X}.",
        "Which nodes are directly caused by {X}?",
        "If {X} is modified, which variables respond directly to it?",
    ),
    "best_treatment": (
        "Which engagement has the highest average effect across all {unit}s?",
        "What is the best engagement on average?",
        "which program gives the largest average revenue growth?",
        "Tell me the engagement with the biggest average uplift over all {unit}s.",
        "Across the whole table, which engagement performs best on average?",
        "Which treatment yields the highest mean revenue growth?",
    ),
    "best_treatment_not_engaged": (
        "Which engagement has the highest average effect on {unit}s that haven't been engaged yet?",
        "Among {unit}s not yet engaged, what's the engagement with the best average uplift?",
        "which program gives the largest average revenue growth for unengaged {unit}s?",
        "Excluding already-engaged {unit}s, which engagement has the highest average effect?",
        "Tell me the best engagement on average for {unit}s with no program so far.",
        "For {unit}s that are still unengaged, which treatment yields the highest mean "
        "revenue growth?",
    ),
    "ate": (
        'What is the average treatment effect of "{T}"?',
        "How much revenue growth does {T} bring on average?",
        "average uplift of {T} across all {unit}s?",
        'Tell me the mean effect of the engagement "{T}".',
        "On average, what is the impact of {T} on revenue growth?",
        'What average lift do we get from "{T}" over all {unit}s?',
    ),
    "best_subject": (
        'Which {unit} benefits most from the engagement "{T}"?',
        "For {T}, which {unit} has the largest effect?",
        "which {unit} gets the highest revenue growth from {T}?",
        'Tell me the {unit} with the biggest uplift under "{T}".',
        "Who is the best {unit} to give {T} to?",
        "Among all {unit}s, whose revenue growth is highest when {T} is applied?",
    ),
    "best_subject_not_engaged": (
        'Which {unit} that hasn\'t been engaged yet benefits most from "{T}"?',
        "Among {unit}s not yet engaged, which has the largest effect from {T}?",
        "which unengaged {unit} gets the highest revenue growth from {T}?",
        "Excluding already-engaged {unit}s, tell me the {unit} with the biggest uplift "
        'under "{T}".',
        "Who is the best {unit} with no program so far to give {T} to?",
        "Of the {unit}s that are still unengaged, whose revenue growth is highest when {T} "
        "is applied?",
    ),
    "ite": (
        'What is the effect of "{T}" on {unit} {S}?',
        "How much revenue growth would {Unit} {S} get from {T}?",
        "effect of {T} for {unit} {S}?",
        "Tell me the uplift of {T} on {unit} {S}.",
        'If {unit} {S} receives the engagement "{T}", what is the impact?',
        "For {Unit} {S}, what lift does {T} produce?",
    ),
    "best_treatment_for_subject": (
        "What is the best engagement for {unit} {S}?",
        "Which treatment gives {Unit} {S} the largest revenue growth?",
        "best program for {unit} {S}?",
        "Tell me which engagement has the biggest uplift on {unit} {S}.",
        "For {Unit} {S}, which engagement would have the highest effect?",
        "Which engagement should we offer {unit} {S} to maximise its revenue growth?",
    ),
}
"""Development paraphrases: 6 per template id."""


TEST_PARAPHRASES: dict[str, tuple[str, ...]] = {
    "connectivity": (
        "Is {X} an upstream cause of {Y}?",
        "Would an intervention on {X} have any impact on {Y}?",
        "does {Y} depend causally on {X}? yes or no",
        "Is {Y} downstream of {X} in the causal graph?",
        "Could {Y} be influenced by {X}, possibly via intermediaries?",
        "Yes/no: does {X} have any causal influence on {Y}?",
        "If I intervened on {X}, would {Y} be affected?",
        "Determine whether {X} causally impacts {Y}.",
    ),
    "paths": (
        "Which nodes sit between {X} and {Y} on the causal paths?",
        "what mediates {X} -> {Y}?",
        "Identify every intermediary through which {X} reaches {Y}.",
        "Along the causal routes from {X} to {Y}, which variables are passed through?",
        "Show the mediating variables for the effect of {X} on {Y}.",
        "By way of which variables is {Y} influenced by {X}?",
        "What factors carry the influence of {X} over to {Y}?",
        "Give me the variables on the causal chain linking {X} to {Y}.",
    ),
    "parents": (
        "What directly drives {X}?",
        "which factors have a direct causal arrow into {X}?",
        "Identify the variables that are immediate causes of {X}.",
        "What sits immediately upstream of {X}?",
        "Show me the direct parents of {X}.",
        "{X} is directly affected by which variables?",
        "Which factors immediately influence {X}, without going through other variables?",
        "direct causes of {X}?",
    ),
    "children": (
        "What does {X} directly drive?",
        "which factors receive a direct causal arrow from {X}?",
        "Identify the variables that are immediate effects of {X}.",
        "What sits immediately downstream of {X}?",
        "Show me the direct children of {X}.",
        "Which variables are directly affected by {X}?",
        "If we intervened on {X}, which nodes would be impacted first-hand, with no intermediary?",
        "direct effects of {X}?",
    ),
    "best_treatment": (
        "Overall, which program has the best average payoff?",
        "top engagement by average revenue growth?",
        "Identify the engagement that maximises the average effect over every {unit}.",
        "If we had to pick one engagement for all {unit}s, which has the highest average return?",
        "Rank the engagements by average effect: which one comes first?",
        "Which engagement delivers the greatest mean uplift, considering all {unit}s?",
        "On average across the full {unit} base, what is the most effective engagement?",
        "Show me the engagement whose average lift is highest.",
    ),
    "best_treatment_not_engaged": (
        "Considering only {unit}s without any engagement so far, which program has the best "
        "average payoff?",
        "top engagement by average revenue growth among not-yet-engaged {unit}s?",
        "Identify the engagement that maximises the average effect over {unit}s that were "
        "never engaged.",
        "If we target only {unit}s we haven't engaged yet, which engagement has the highest "
        "average return?",
        "Restricting to {unit}s not already engaged, rank the engagements by average effect: "
        "which one comes first?",
        "Which engagement delivers the greatest mean uplift for {unit}s who are not already "
        "engaged?",
        "Leaving out {unit}s already in a program, what is the most effective engagement on "
        "average?",
        "Show me the engagement whose average lift is highest on the unengaged {unit}s.",
    ),
    "ate": (
        "What's the ATE of {T}?",
        "how effective is {T} on average?",
        'Give me the expected revenue growth from "{T}", averaged over every {unit}.',
        "On average, how much does the engagement {T} lift revenue growth?",
        "What mean payoff does {T} deliver across the {unit} base?",
        "Estimate the average impact of the {T} program.",
        "{T}: average effect over all {unit}s?",
        "Across all {unit}s, what return does the engagement {T} produce on average?",
    ),
    "best_subject": (
        "Which {unit} would profit most if we rolled out {T}?",
        "top {unit} for {T}?",
        'Identify the {unit} for whom "{T}" produces the highest revenue growth.',
        "If we could give {T} to just one {unit}, which one would see the largest payoff?",
        "Which {unit} responds best to the {T} engagement?",
        "Across every {unit}, who has the greatest uplift from {T}?",
        "Show me the {unit} with the maximal effect of {T}.",
        "For which {unit} is the impact of {T} the largest?",
    ),
    "best_subject_not_engaged": (
        "Among {unit}s we haven't engaged yet, who gains the most from {T}?",
        "top not-yet-engaged {unit} for {T}?",
        'Identify the {unit}, excluding those already engaged, for whom "{T}" produces the '
        "highest revenue growth.",
        "If we could give {T} to just one {unit} that has never been engaged, which one would "
        "see the largest payoff?",
        "Which {unit} without any prior program responds best to the {T} engagement?",
        "Across the {unit}s that are not already engaged, who has the greatest uplift from {T}?",
        "Show me the unengaged {unit} with the maximal effect of {T}.",
        "Leaving out already-engaged {unit}s, for which {unit} is the impact of {T} the largest?",
    ),
    "ite": (
        "What's the individual treatment effect of {T} for {unit} {S}?",
        "how much would {T} lift {unit} {S}'s revenue growth?",
        '{Unit} {S}, engagement "{T}": what\'s the effect?',
        "Estimate the revenue growth {unit} {S} would see from {T}.",
        "What payoff does {T} have for {Unit} {S}?",
        "Give me the ITE of the {T} engagement on {unit} {S}.",
        "By how much does {T} impact {unit} {S}?",
        "If we applied {T} to {unit} {S}, what return would we get?",
    ),
    "best_treatment_for_subject": (
        "What's the optimal engagement for {Unit} {S}?",
        "which program maximises revenue growth for {unit} {S}?",
        "If we could offer {unit} {S} only one engagement, which one would pay off most?",
        "Identify the engagement with the largest individual effect on {unit} {S}.",
        "{Unit} {S}: top engagement?",
        "Which treatment would {unit} {S} respond to best?",
        "Show me the engagement giving the highest uplift for {unit} {S}.",
        "For {unit} {S}, rank the engagements by effect: which one is first?",
    ),
}
"""Held-out test paraphrases: 8 per template id. Final evaluation only, never tuning."""
