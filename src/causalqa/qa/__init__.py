"""Question answering over a causal model (paper 000).

`causalqa.qa.tools` holds the typed tool API, the plan schema built from a loaded model,
and the executor that runs a plan without evaluating any code.
"""
