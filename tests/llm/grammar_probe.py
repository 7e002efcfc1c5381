"""Ask llama.cpp's own grammar sampler whether it lets a text through, token by token.

Only the vocabulary of the small embedded model is loaded (no weights are evaluated)."""

from __future__ import annotations

import ctypes
import functools
import math


@functools.lru_cache(maxsize=1)
def _vocab_model():
    import llama_cpp

    from causalqa.llm.kernels import ensure_cpu_backend
    from causalqa.llm.models import EMBEDDED, ensure_model

    ensure_cpu_backend(llama_cpp)  # a GGML_BACKEND_DL build has no CPU backend until then
    path = ensure_model(EMBEDDED["local:small"], quiet=True)
    return llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)


def accepts(gbnf: str, text: str) -> bool:
    """True when the grammar allows every token of `text` (and then end of generation)."""
    import llama_cpp

    llm = _vocab_model()
    vocab = llama_cpp.llama_model_get_vocab(llm._model.model)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode(), b"root")
    assert sampler, "llama.cpp refused the grammar"
    try:
        tokens = llm.tokenize(text.encode(), add_bos=False, special=False)
        for tok in [*tokens, llm.token_eos()]:
            data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(tok, 0.0, 0.0))
            arr = llama_cpp.llama_token_data_array(data, 1, -1, False)
            llama_cpp.llama_sampler_apply(sampler, ctypes.byref(arr))
            if math.isinf(data[0].logit):
                return False
            if tok != llm.token_eos():
                llama_cpp.llama_sampler_accept(sampler, tok)
        return True
    finally:
        llama_cpp.llama_sampler_free(sampler)
