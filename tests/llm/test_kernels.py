"""Choosing llama.cpp's CPU kernel variant (causalqa.llm.kernels)."""

import pytest
from tests.conftest import requires_llama

from causalqa.errors import ConfigError, LLMUnavailableError
from causalqa.llm.kernels import choose_variant, ensure_cpu_backend, variant_files

SCORES = {"x64": 1, "haswell": 57, "icelake": 1913, "sapphirerapids": 3961, "zen4": 0}


def test_the_best_variant_this_cpu_can_run_wins_but_amx_only_when_asked():
    assert choose_variant(SCORES) == ("icelake", "score", ["sapphirerapids"])
    assert choose_variant(SCORES, allow_amx=True) == ("sapphirerapids", "score", [])
    assert choose_variant({"x64": 1, "zen4": 0}) == ("x64", "score", [])


def test_a_forced_variant_must_exist_and_run_here():
    assert choose_variant(SCORES, forced="haswell") == ("haswell", "$CAUSALQA_GGML_CPU", [])
    with pytest.raises(ConfigError, match="names no CPU kernel variant") as e:
        choose_variant(SCORES, forced="skylake")
    assert "icelake" in e.value.hint
    with pytest.raises(ConfigError, match="lacks the instructions"):
        choose_variant(SCORES, forced="zen4")


def test_no_runnable_variant_is_a_clear_error():
    with pytest.raises(LLMUnavailableError, match="no llama.cpp CPU kernel variant"):
        choose_variant({"zen4": 0})


def test_variant_files_are_found_by_name(tmp_path):
    for name in ("libggml-cpu-haswell.so", "libggml-cpu-x64.so", "libggml-base.so", "other.so"):
        (tmp_path / name).write_bytes(b"")
    assert sorted(variant_files(tmp_path)) == ["haswell", "x64"]
    # A wheel puts them in site-packages/bin, beside llama_cpp/lib: both are searched.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "libggml-cpu-icelake.so").write_bytes(b"")
    (tmp_path / "bin" / "libggml-cpu-x64.so").write_bytes(b"")
    found = variant_files(tmp_path, tmp_path / "bin")
    assert sorted(found) == ["haswell", "icelake", "x64"]
    assert found["x64"] == tmp_path / "libggml-cpu-x64.so"  # the first directory wins


@requires_llama
def test_the_installed_build_reports_its_kernels():
    import llama_cpp

    info = ensure_cpu_backend(llama_cpp)
    assert info.build in ("static", "dynamic")
    assert "CPU" in info.system_info  # llama.cpp's own feature string, e.g. "CPU : AVX2 = 1"
    if info.build == "dynamic" and info.chosen_by == "score":
        assert info.scores[info.variant] == max(
            v for k, v in info.scores.items() if k not in info.skipped
        )
    assert ensure_cpu_backend(llama_cpp) is info  # once per process
