"""A new user's plain wording: quantity-first statements ("40% of people smoke", "3 in 10
drivers speed"), the formal notation ("P(rain) = 0.3", "P(late | traffic) = 0.6"),
"if X, Y with probability p, otherwise q", an elliptical second clause ("...; without it,
10 in 100"), and everyday yes/no questions ("Does X make Y more likely?", "Does X raise
the risk of Y?", "Is Y more likely among X than among not-X?").

Every expected value is derived by hand in the comment above its case."""

# Stories and questions read best one sentence to a line.
# ruff: noqa: E501

from __future__ import annotations

import pytest

from causalqa.stated.answer import answer_story

SMOKING = (
    "Smoking has a direct effect on tar and on cancer; tar has a direct effect on cancer. "
    "40% of people smoke. Among smokers the probability of cancer is 30%. "
    "Among non-smokers the probability of cancer is 10%."
)
RAIN = (
    "Rain influences traffic. Traffic influences lateness. P(rain)=0.3. "
    "If it rains, traffic is heavy with probability 0.8, otherwise 0.2. "
    "With heavy traffic, 60 in 100 people are late; without it, 10 in 100."
)
# rain -> traffic -> late in formal notation
RAIN_FORMAL = (
    "Rain -> traffic. Traffic -> late. P(rain) = 0.3. P(traffic | rain) = 0.8. "
    "P(traffic | no rain) = 0.2. P(late | traffic) = 0.6. P(late | no traffic) = 0.1."
)
# gene confounds smoking -> cancer
GENE_FORMAL = (
    "Gene -> smoking, gene -> cancer, smoking -> cancer. P(gene) = 0.5. "
    "P(smoking | gene) = 0.8. P(smoking | no gene) = 0.2. "
    "P(cancer | smoking, gene) = 0.7. P(cancer | smoking, no gene) = 0.4. "
    "P(cancer | no smoking, gene) = 0.5. P(cancer | no smoking, no gene) = 0.3."
)
BURGLARY = (
    "The alarm depends on burglary. The chance of burglary is 10%. "
    "If there is a burglary, the alarm rings with probability 0.9, otherwise 0.05."
)
EXERCISE = (
    "Exercise influences heart disease. 30% of people exercise. "
    "Among people who exercise, 5% get heart disease. "
    "Among people who do not exercise, 15% get heart disease."
)
SPEEDING = (
    "Speeding causes crashes. 3 in 10 drivers speed. "
    "For drivers who speed, the probability of a crash is 0.2. "
    "For drivers who do not speed, the probability of a crash is 0.05."
)
FERTILIZER = (
    "Fertilizer has a direct effect on harvest. P(fertilizer) = 0.5. "
    "When fertilizer is used, a good harvest happens with probability 0.3, otherwise 0.6."
)
VACCINE = (
    "Vaccination affects infection. 70% of children are vaccinated. "
    "Among vaccinated children, 2 in 100 get the infection; among unvaccinated children, 20 in 100."
)

EXERCISE_LIST = (
    "Exercise affects heart disease. Half of the people exercise. "
    "Heart disease rates: exercise 5%; no exercise 15%."
)
MOOD = (
    "Rain affects both traffic and mood, and traffic affects mood. P(rain) = 0.3. "
    "P(traffic | rain) = 0.8. P(traffic | no rain) = 0.2. P(mood | rain, traffic) = 0.2. "
    "P(mood | rain, no traffic) = 0.5. P(mood | no rain, traffic) = 0.4. "
    "P(mood | no rain, no traffic) = 0.9."
)
TRAINING = (
    "Job training affects confidence, and both training and confidence affect employment. "
    "P(job training) = 0.5. 70% of trainees become confident, versus 30% of non-trainees. "
    "Employment rates: trained and confident 80%; trained, not confident 60%; "
    "untrained and confident 60%; untrained, not confident 30%."
)

AGE = (
    "Age affects both exercise and heart disease, and exercise affects heart disease. "
    "40% of people are old. Old people exercise with probability 0.3, young people with "
    "probability 0.6. Old people who exercise get heart disease 20% of the time, old people "
    "who do not exercise 40%. Young people who exercise get heart disease 5% of the time, "
    "young people who do not exercise 10%."
)

# no spaces around "=" and "|", and the negation signs ¬ and ~
SADNESS = "Rain affects sadness. P(rain)=0.3. P(sadness|rain)=0.7. P(sadness|¬rain)=0.2. "

CASES = [
    # 0.7 - 0.2 = 0.50
    ("sadness", SADNESS, "Does rain make sadness more likely?", "yes", 0.50),
    (
        "sadness-tilde",
        SADNESS.replace("¬", "~"),
        "Does rain raise the risk of sadness?",
        "yes",
        0.50,
    ),
    # 0.30 - 0.10 = 0.20 (smoking has no parent: the effect is the conditional difference)
    ("smoking-increase", SMOKING, "Will smoking increase the chance of cancer?", "yes", 0.20),
    ("smoking-more-likely", SMOKING, "Does smoking make cancer more likely?", "yes", 0.20),
    ("smoking-raise-risk", SMOKING, "Does smoking raise the risk of cancer?", "yes", 0.20),
    ("smoking-lower-risk", SMOKING, "Does smoking lower the risk of cancer?", "no", 0.20),
    ("smoking-less-likely", SMOKING, "Does smoking make cancer less likely?", "no", 0.20),
    (
        "smoking-among",
        SMOKING,
        "Is cancer more likely among smokers than among non-smokers?",
        "yes",
        0.20,
    ),
    # (0.8 - 0.2) * (0.6 - 0.1) = 0.30 along the chain
    ("rain-more-likely", RAIN, "Does rain make lateness more likely?", "yes", 0.30),
    ("rain-raise", RAIN, "Does rain raise the probability of lateness?", "yes", 0.30),
    ("rain-less-likely", RAIN, "Does rain make lateness less likely?", "no", 0.30),
    ("rain-formal", RAIN_FORMAL, "Does rain raise the chance of late?", "yes", 0.30),
    ("rain-formal-lower", RAIN_FORMAL, "Does rain lower the chance of late?", "no", 0.30),
    # back-door over gene: 0.5 (0.7 - 0.5) + 0.5 (0.4 - 0.3) = 0.15
    ("gene-ate", GENE_FORMAL, "Does smoking raise the chance of cancer?", "yes", 0.15),
    ("gene-ate-make", GENE_FORMAL, "Does smoking make cancer more likely?", "yes", 0.15),
    # P(gene | smoking) = 0.4 / 0.5 = 0.8, P(gene | no smoking) = 0.1 / 0.5 = 0.2;
    # P(cancer | smoking) = 0.8 * 0.7 + 0.2 * 0.4 = 0.64,
    # P(cancer | no smoking) = 0.2 * 0.5 + 0.8 * 0.3 = 0.34: difference 0.30
    (
        "gene-correlation",
        GENE_FORMAL,
        "Is cancer more likely among smoking than among no smoking?",
        "yes",
        0.30,
    ),
    # 0.9 - 0.05 = 0.85
    ("burglary", BURGLARY, "Does burglary make the alarm more likely?", "yes", 0.85),
    ("burglary-lower", BURGLARY, "Does burglary lower the chance of the alarm?", "no", 0.85),
    # 0.05 - 0.15 = -0.10
    ("exercise-lower", EXERCISE, "Does exercise lower the risk of heart disease?", "yes", -0.10),
    ("exercise-more", EXERCISE, "Does exercise make heart disease more likely?", "no", -0.10),
    # 0.2 - 0.05 = 0.15
    ("speeding", SPEEDING, "Does speeding raise the risk of a crash?", "yes", 0.15),
    (
        "speeding-among",
        SPEEDING,
        "Is a crash less likely among drivers who speed than among drivers who do not speed?",
        "no",
        0.15,
    ),
    # 0.3 - 0.6 = -0.30
    ("fertilizer", FERTILIZER, "Does fertilizer make a good harvest more likely?", "no", -0.30),
    (
        "fertilizer-lower",
        FERTILIZER,
        "Does fertilizer lower the chance of a good harvest?",
        "yes",
        -0.30,
    ),
    # 0.02 - 0.20 = -0.18
    ("vaccine", VACCINE, "Does vaccination lower the risk of infection?", "yes", -0.18),
    ("vaccine-more", VACCINE, "Does vaccination make infection more likely?", "no", -0.18),
    # a verb of causing asks for a positive effect, of preventing for a negative one
    ("smoking-cause", SMOKING, "Does smoking cause cancer?", "yes", 0.20),
    ("smoking-lead-to", SMOKING, "Does smoking lead to cancer?", "yes", 0.20),
    ("smoking-a-cause", SMOKING, "Is smoking a cause of cancer?", "yes", 0.20),
    ("smoking-prevent", SMOKING, "Does smoking prevent cancer?", "no", 0.20),
    ("vaccine-prevent", VACCINE, "Does vaccination prevent infection?", "yes", -0.18),
    ("vaccine-cause", VACCINE, "Does vaccination cause infection?", "no", -0.18),
    # "than non-smokers" without a second "among" compares the same two groups
    (
        "smoking-among-than",
        SMOKING,
        "Is cancer more likely among smokers than non-smokers?",
        "yes",
        0.20,
    ),
    (
        "smoking-among-than-less",
        SMOKING,
        "Is cancer less likely among smokers than non-smokers?",
        "no",
        0.20,
    ),
    # the number after the verb: "smokers get cancer 30% of the time" is P(cancer | smokers)
    (
        "smoking-of-the-time",
        "Smoking causes cancer. 40% of people smoke. Smokers get cancer 30% of the time. "
        "Non-smokers get cancer 10% of the time.",
        "Does smoking increase the chance of cancer?",
        "yes",
        0.20,
    ),
    (
        "smoking-who-with-probability",
        "Smoking causes cancer. 40% of people smoke. People who smoke develop cancer with "
        "probability 0.3. People who do not smoke develop cancer with probability 0.1.",
        "Does smoking cause cancer?",
        "yes",
        0.20,
    ),
    # a later clause naming only a group takes the sentence's event: 0.30 - 0.10 = 0.20
    (
        "smoking-list-clause",
        "Smoking causes cancer. 40% of people smoke. Smokers get cancer 30% of the time, "
        "non-smokers 10%.",
        "Does smoking raise the risk of cancer?",
        "yes",
        0.20,
    ),
    # a header names the event of every item; "half" is a number: 0.05 - 0.15 = -0.10
    (
        "exercise-list",
        EXERCISE_LIST,
        "Does exercise lower the risk of heart disease?",
        "yes",
        -0.10,
    ),
    # 0.5 * 0.05 + 0.5 * 0.15 = 0.10; "on a given day" says anyone
    (
        "exercise-list-marginal",
        EXERCISE_LIST,
        "Is heart disease more likely than not on a given day?",
        "no",
        0.10,
    ),
    # NDE = sum_t P(t | no rain) [P(m | rain, t) - P(m | no rain, t)]
    #     = 0.2 (0.2 - 0.4) + 0.8 (0.5 - 0.9) = -0.36
    (
        "mood-direct",
        MOOD,
        "Does rain directly (not through traffic) lower the chance of mood?",
        "yes",
        -0.36,
    ),
    (
        "mood-apart-from",
        MOOD,
        "Apart from traffic, does rain directly raise the chance of mood?",
        "no",
        -0.36,
    ),
    # NIE = sum_t P(m | no rain, t) [P(t | rain) - P(t | no rain)] = 0.4 (0.6) + 0.9 (-0.6) = -0.30
    ("mood-through", MOOD, "Does rain lower the chance of mood through traffic?", "yes", -0.30),
    # no back-door path: ETT = P(c | no smoking) - P(c | smoking) = 0.10 - 0.30 = -0.20
    (
        "smoking-ett-had-they-not",
        "Smoking causes cancer. 40% of people smoke. 30% of smokers get cancer, versus 10% of "
        "the others.",
        "For the smokers, would cancer have been less likely had they not smoked?",
        "yes",
        -0.20,
    ),
    # "training" is "job training" said short; ATE = P(e | t) - P(e | no t) (no parent of t)
    # = (0.7 * 0.8 + 0.3 * 0.6) - (0.3 * 0.6 + 0.7 * 0.3) = 0.74 - 0.39 = 0.35
    ("training-compound-graph", TRAINING, "Does job training increase employment?", "yes", 0.35),
    # phrases cut at the variables' names ("old people who exercise get heart disease");
    # back-door over age: 0.4 (0.20 - 0.40) + 0.6 (0.05 - 0.10) = -0.11
    ("age-segmented", AGE, "Does exercise lower the risk of heart disease?", "yes", -0.11),
    # P(ex) = 0.4 * 0.3 + 0.6 * 0.6 = 0.48; P(hd | ex) = (0.024 + 0.018) / 0.48 = 0.0875;
    # P(hd | no ex) = (0.112 + 0.024) / 0.52 = 0.261538...: difference -0.174038...
    (
        "age-segmented-correlation",
        AGE,
        "Is heart disease more likely among people who exercise than among people who do not?",
        "no",
        0.0875 - 0.136 / 0.52,
    ),
    # "group" names the variable here (group study), so "study in a group" is its value 1:
    # NDE = P(d | alone) (0.5 - 0.4) + P(no d | alone) (0.9 - 0.7) = 0.2 * 0.1 + 0.8 * 0.2 = 0.18
    (
        "group-study-nde",
        "Group study -> distraction -> passing, and group study -> passing. Students who study "
        "in a group get distracted with probability 0.6, students who study alone with "
        "probability 0.2. Pass rates: group and distracted 50%; group, not distracted 90%; "
        "alone and distracted 40%; alone, not distracted 70%.",
        "Does group study directly (not through distraction) raise the chance of passing?",
        "yes",
        0.18,
    ),
    # "a randomly chosen person" is anyone: P(hd) = 0.5 * 0.05 + 0.5 * 0.15 = 0.10
    (
        "anyone-marginal",
        EXERCISE_LIST,
        "Does a randomly chosen person more likely than not get heart disease?",
        "no",
        0.10,
    ),
    # the group is the subject and the other group only its negation: 0.05 - 0.15 = -0.10
    (
        "subject-group-correlation",
        EXERCISE_LIST,
        "Are people who exercise less likely to get heart disease than people who don't?",
        "yes",
        -0.10,
    ),
    # the first piece states the event with any verb; "compared with ... not on it":
    # ATE = 0.6 - 0.2 = 0.40 (diet has no parent)
    (
        "diet-compared-with",
        "The diet affects weight loss. A quarter of people are on the diet. 6 in 10 people on "
        "the diet lose weight, compared with 2 in 10 people not on it.",
        "Does the diet make weight loss more likely?",
        "yes",
        0.40,
    ),
    # ETT with no back-door path = P(y | no x) - P(y | x) = 0.2 - 0.6 = -0.40
    (
        "diet-ett-without",
        "The diet affects weight loss. A quarter of people are on the diet. 6 in 10 people on "
        "the diet lose weight, compared with 2 in 10 people not on it.",
        "For the people on the diet, would weight loss have been less likely without the diet?",
        "yes",
        -0.40,
    ),
]


@pytest.mark.parametrize(
    ("story", "question", "expected", "value"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_plain_wording(story, question, expected, value):
    got = answer_story(story, question)
    assert got.answer == expected, got.reason
    assert got.value == pytest.approx(value, abs=1e-9)


def test_formal_notation_reads_each_number_once():
    from causalqa.stated.answer import read_story

    m = read_story(GENE_FORMAL)
    assert len(m.probabilities) == 7
    stated = {
        (tuple(sorted(p.event.items())), tuple(sorted(p.given.items()))): p.value
        for p in m.probabilities
    }
    assert stated[((("cancer", 1),), (("gene", 0), ("smoking", 1)))] == pytest.approx(0.4)
    assert stated[((("smoking", 1),), (("gene", 0),))] == pytest.approx(0.2)


def test_a_question_that_compares_inside_one_phrase_is_not_read_as_one_group():
    # "smokers than non-smokers" is two groups; no form may take it as one phrase
    from causalqa.stated.question import parse_question

    form = parse_question("Is cancer more likely among smokers than non-smokers?")
    assert form is not None
    assert all("than" not in p for ps in form.slots.values() for p in ps)


def test_a_condition_in_a_trailing_phrase_is_not_dropped():
    # "on a rainy day" is a condition, not "anyone": no form may read it as the marginal
    got = answer_story(EXERCISE_LIST, "Is heart disease more likely than not on a rainy day?")
    assert got.answer is None


def test_a_list_item_read_alone_is_refused_not_read_as_a_joint():
    # without its header, "trained and confident 80%" is no statement the reader may guess
    got = answer_story(
        "Training affects employment. Training affects confidence. Confidence affects "
        "employment. Trained and confident 80%.",
        "Does training increase employment?",
    )
    assert got.answer is None


def test_a_mediator_cue_is_never_swallowed_into_a_phrase():
    from causalqa.stated.question import parse_question

    form = parse_question(
        "Does overtime directly (not through fatigue) increase the chance of errors?"
    )
    assert form.kind == "nde" and form.slots["treatment"] == ["overtime"]
    assert form.slots["mediators"] == ["fatigue"]
    form = parse_question("Does the lower speed limit decrease accidents?")
    assert (form.kind, form.slots["treatment"], form.direction) == (
        "ate",
        ["the lower speed limit"],
        "down",
    )


def test_fractions_in_words_are_numbers_but_bounds_are_not():
    from causalqa.stated.text import with_placeholder

    assert [n.value for n in with_placeholder("Half of the cars are old.")[1]] == [0.5]
    assert [n.value for n in with_placeholder("Two thirds of days are dry.")[1]] == [
        pytest.approx(2 / 3)
    ]
    assert with_placeholder("More than half of people smoke.")[1] == []
    assert with_placeholder("The half-life is long.")[1] == []


def test_a_phrase_is_cut_where_it_turns_to_another_variable():
    from causalqa.stated.resolve import segment_phrase

    names = {"age": "age", "exercise": "exercise", "heart disease": "heart disease"}
    assert segment_phrase("old people who do not exercise", names) == [
        "old people who do",
        "not exercise",
    ]
    assert segment_phrase("heart disease", names) == ["heart disease"]


def test_words_after_the_number_are_never_dropped():
    # "30% of cars drive fast" is not the probability of the limit
    got = answer_story(
        "The speed limit affects speeding. Speeding affects accidents. On roads with the "
        "lower limit, 30% of cars drive fast. P(accident | speeding) = 0.4. "
        "P(accident | no speeding) = 0.1.",
        "Does the speed limit raise the chance of accidents?",
    )
    assert got.answer is None


def test_otherwise_without_a_previous_statement_is_refused():
    got = answer_story(
        "Rain influences traffic. Otherwise 0.2. P(rain) = 0.3.",
        "Does rain make traffic more likely?",
    )
    assert got.answer is None
    assert "Otherwise 0.2" in (got.reason or "")


def test_no_effect_is_never_read_from_a_missing_edge_alone():
    # the story never says whether the desk affects back pain: refused, not "0"
    story = (
        "Some unmeasured factor influences both who uses a treadmill desk and who gets "
        "headaches. P(headache | treadmill desk) = 0.3. P(headache | no treadmill desk) = 0.5."
    )
    question = "Would giving everyone a treadmill desk reduce headaches?"
    got = answer_story(story, question)
    assert got.answer is None and "does not say" in got.reason
    # said outright, or in a story that declares its graph complete, the effect is 0
    said = answer_story(story + " The treadmill desk does not affect headaches.", question)
    assert (said.answer, said.value) == ("no", 0.0)
    closed = answer_story(
        "In a closed world with no other causal relationships: " + story, question
    )
    assert (closed.answer, closed.value) == ("no", 0.0)


FLU = (
    "The flu causes a cough. 20% of people have the flu. People with the flu cough 70% of "
    "the time; people without it 10% of the time."
)


def test_a_group_inside_the_subject_is_a_condition_not_the_event():
    # "people with the flu cough 70%": P(cough | flu), not P(flu) — P(cough) = 0.2 * 0.7 +
    # 0.8 * 0.1 = 0.22; P(flu | cough) = 0.14 / 0.22, P(flu | no cough) = 0.06 / 0.78
    marginal = answer_story(FLU, "Is a cough more likely than not overall?")
    assert (marginal.answer, marginal.value) == ("no", pytest.approx(0.22))
    bayes = answer_story(
        FLU, "Is the flu more likely among people who cough than among those who don't?"
    )
    assert bayes.answer == "yes"
    assert bayes.value == pytest.approx(0.14 / 0.22 - 0.06 / 0.78)


def test_those_who_do_not_are_the_other_group_of_a_relative_clause():
    # "half of those who stretch finish the season, compared with 20% of those who don't":
    # P(finish | stretch) = 0.5, P(finish | no stretch) = 0.2; ATE = 0.30
    got = answer_story(
        "Stretching affects finishing the season. A third of runners stretch. Half of those "
        "who stretch finish the season, compared with 20% of those who don't.",
        "Does stretching make finishing the season more likely?",
    )
    assert (got.answer, got.value) == ("yes", pytest.approx(0.30))


def test_a_variable_named_by_a_negating_verb_keeps_its_polarity():
    # "injury avoidance" is named by "avoid": "those who stretch avoid injury" is its value
    # 1, not its value 0. P(avoid | stretch) = 0.5, P(avoid | no stretch) = 0.2: ATE 0.30
    got = answer_story(
        "Stretching affects injury avoidance. A third of runners stretch. Half of those who "
        "stretch avoid injury, compared with 20% of those who don't.",
        "Does stretching make injury avoidance more likely?",
    )
    assert (got.answer, got.value) == ("yes", pytest.approx(0.30))


def test_a_dropped_anyone_phrase_that_names_a_variable_is_refused():
    # "for an exerciser" is a condition on exercise, not "anyone": never the marginal
    for question in (
        "Is heart disease more likely than not for an exerciser?",
        "Does a randomly chosen exerciser more likely than not get heart disease?",
    ):
        got = answer_story(EXERCISE_LIST, question)
        assert got.answer is None and "condition on exercise" in got.reason


def test_two_graph_names_for_one_variable_are_one_variable():
    # "they get the drug" / "the drug" and "they recover" / "recovery" name one variable
    # each: drug -> recovery. P(drug) = 0.4; P(rec | drug) = 0.7, P(rec | no drug) = 0.5:
    # P(rec) = 0.4*0.7 + 0.6*0.5 = 0.58
    got = answer_story(
        "Whether they get the drug affects whether they recover. The drug also speeds up "
        "recovery. 40% of patients get the drug. Patients on the drug recover 70% of the time, "
        "patients without it 50% of the time.",
        "Is recovery more likely than not?",
    )
    assert (got.answer, got.value) == ("yes", pytest.approx(0.58))
    assert len(got.model["variables"]) == 2


def test_values_in_a_parenthesis_name_the_variable():
    # "(wet or dry)" gives the season's values: "wet" speaks of the season.
    # P(wet) = 0.5; P(mould | wet, vented) = 0.2, (wet, not vented) 0.6, (dry, vented) 0.1,
    # (dry, not vented) 0.2; P(vented | wet) = 0.7, P(vented | dry) = 0.3.
    # ATE of venting = 0.5*(0.2-0.6) + 0.5*(0.1-0.2) = -0.25
    got = answer_story(
        "The season (wet or dry) affects whether a room is vented and whether mould grows; "
        "venting also affects mould. Half of the seasons are wet. 70% of rooms are vented in "
        "wet seasons, 30% in dry ones. Mould rates: wet vented 0.2, wet not vented 0.6, "
        "dry vented 0.1, dry not vented 0.2.",
        "Does venting a room lower the chance of mould?",
    )
    assert (got.answer, got.value) == ("yes", pytest.approx(-0.25))


def test_a_list_item_names_its_conditions_relative_to_the_item_before():
    # "with rain 0.9, without 0.5": 'without' is without the condition the item before
    # names and this one leaves out; "A only" is A and not B; "neither" is neither.
    # P(good | fert, rain) = 0.9, (fert, no rain) 0.5, (no fert, rain) 0.6, (neither) 0.2;
    # P(fert) = 0.5, P(rain) = 0.4 (independent). ATE of fertilizer =
    # 0.4*(0.9-0.6) + 0.6*(0.5-0.2) = 0.30
    for rates in (
        "Good harvest rates: fertilized with rain 0.9, fertilized without 0.5, unfertilized "
        "with rain 0.6, unfertilized without 0.2.",
        "Good harvest rates: fertilizer and rain 0.9; fertilizer only 0.5; rain only 0.6; "
        "neither 0.2.",
    ):
        got = answer_story(
            "Fertilizer and rain both affect the harvest. Half of the fields are fertilized. "
            "40% of seasons are rainy. " + rates,
            "Does fertilizer make a good harvest more likely?",
        )
        assert (got.answer, got.value) == ("yes", pytest.approx(0.30)), rates


def test_a_relation_repeated_inside_a_list_of_effects_is_not_a_name():
    # "X is one of the causes of A and also one of the causes of B": two edges
    got = answer_story(
        "Heat is one of the causes of thirst and also one of the causes of fatigue. "
        "30% of days are hot. Thirst: 80% on hot days, 20% on other days. "
        "Fatigue: 60% on hot days, 30% on other days.",
        "Is fatigue more likely than not?",
    )
    # P(fatigue) = 0.3*0.6 + 0.7*0.3 = 0.39
    assert (got.answer, got.value) == ("no", pytest.approx(0.39))
    assert sorted(got.model["edges"]) == [["heat", "fatigue"], ["heat", "thirst"]]


def test_numbers_as_people_write_them():
    from causalqa.stated.text import find_numbers

    def read(text):
        return [(n.text, round(n.value, 4)) for _, _, n in find_numbers(text)]

    assert read("long commute + app .35, short + app .08") == [(".35", 0.35), (".08", 0.08)]
    assert read("Roughly 3 of every 10 batches") == [("3 of every 10", 0.3)]
    assert read("A heatwave hits on one summer day in four.") == [("one summer day in four", 0.25)]
    assert read("one spring out of five") == [("one spring out of five", 0.2)]
    # a year is no ratio's denominator
    assert read("one patient in 2019") == [("2019", 2019.0)]


def test_a_word_ending_in_one_is_no_ratio():
    from causalqa.stated.text import find_numbers

    # "done in 55%" is 55%, not "one in 55"
    got = [(n.text, n.value) for _, _, n in find_numbers("Weeding is done in 55% of plots")]
    assert got == [("55%", 0.55)]


def test_questions_said_in_other_frames():
    from causalqa.stated.question import parse_question

    def read(q):
        f = parse_question(q)
        return f and (f.kind, f.direction, f.slots.get("outcome"))

    assert read("Are colds less common among walkers than among drivers?") == (
        "correlation",
        "down",
        ["colds"],
    )
    assert read("Is a tenant more likely than not to renew the lease?") == (
        "marginal",
        "up",
        ["renew the lease"],
    )
    assert read("Does a visitor buy a ticket more often than not?")[:2] == ("marginal", "up")
    ett = read(
        "For the tenants who got the discount, would their chance of renewing have been lower "
        "had they not got it?"
    )
    assert ett == ("ett", "down", ["renewing"])
    assert read(
        "Thinking only about the tenants who got the discount: would they have been more "
        "likely to renew had they not got it?"
    ) == ("ett", "up", ["renew"])
    assert read("Among flooded basements, is a burst pipe less likely when it rained?") == (
        "explaining_away",
        "down",
        ["a burst pipe"],
    )


def test_an_event_in_a_share_of_a_group():
    # P(frost) = 0.25 on "mornings" (a unit, no condition); P(burst | frost) = 0.4,
    # P(burst | no frost) = 0.05: P(burst) = 0.25*0.4 + 0.75*0.05 = 0.1375
    got = answer_story(
        "Frost causes burst pipes. Frost happens on 25% of winter mornings. A burst pipe "
        "happened in 40% of frost mornings and 5% of other mornings.",
        "Is a burst pipe less likely than not?",
    )
    assert (got.answer, got.value) == ("yes", pytest.approx(0.1375))


def test_a_graph_name_holding_a_clause_of_its_own_is_not_read():
    from causalqa.stated.parse import read_graph_sentence

    # "the campaign may also move the target" is a second statement, not a name
    assert (
        read_graph_sentence(
            "The campaign drives downloads, downloads help us hit the target, and the campaign "
            "may also move the target."
        )
        is None
    )


def test_more_question_frames():
    from causalqa.stated.question import parse_question

    lead = parse_question(
        "Looking at the raw numbers, are colds more common among walkers than among drivers?"
    )
    assert (lead.kind, lead.direction) == ("correlation", "up")
    most = parse_question("Will most tenants renew the lease?")
    assert (most.kind, most.slots["outcome"], most.dropped) == (
        "marginal",
        ["renew the lease"],
        ["most tenants"],
    )
    two = parse_question(
        "Among flooded basements, is a burst pipe more common among those with old pipes than "
        "among those without?"
    )
    assert (two.kind, two.slots["treatment"]) == ("explaining_away", ["old pipes"])


def test_a_cycle_said_with_a_header_and_in_turn_is_refused():
    # "Notes: A causes B, and B in turn causes A - a loop": the names are A and B, so the
    # graph is a cycle, refused naming the sentence (not two pairs of garbled names)
    got = answer_story(
        "Gym notes: fatigue causes skipped sessions, and skipped sessions in turn cause "
        "fatigue - a vicious circle. 40% of members report fatigue. Skipped sessions are seen "
        "in 60% of fatigued members and 20% of the others.",
        "Does fatigue raise the chance of skipped sessions?",
    )
    assert got.answer is None and "cycle" in got.reason and "Gym notes" in got.reason
