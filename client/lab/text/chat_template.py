"""The prompt a server prefills for a chat: the messages as the model's chat template
renders them, cut into tokens.

vLLM's usage.prompt_tokens, llama.cpp's prompt_n and Ollama's prompt_eval_count all
count the rendered prompt, not the text the user typed. The lab renders ChatML, as
SmolLM2, Qwen and many GGUF chat templates do, token for token as SmolLM2's tokenizer
cuts it: each message is <|im_start|> role \\n content <|im_end|> \\n (four template
tokens and the role's), then the generation prompt <|im_start|> assistant \\n. SmolLM2's
template also puts its own system prompt first when the conversation has none ("You are
a helpful AI assistant named SmolLM, trained by Hugging Face", 16 tokens): the
scenario's `system_prompt_tokens`, 0 for a model whose template has none.

So vLLM 0.32 serving SmolLM2 counts 37 prompt tokens for "What is 2+2?" (21 for the
system prompt's message, 12 for the question's, 4 for the generation prompt) and 34 for
"Name three colours.", and so does the lab (tests/lab/test_chat_template.py).
"""

from __future__ import annotations

from client.lab.text.corpus import tokenize

IM_START, IM_END = "<|im_start|>", "<|im_end|>"
# SmolLM2's tokenizer has "system", "user" and "tool" whole, but cuts "assistant".
ROLE_TOKENS = {"assistant": ("ass", "istant")}
# SmolLM2's default system prompt, as its tokenizer cuts it.
SMOLLM2_SYSTEM_PROMPT = (
    "You", " are", " a", " helpful", " AI", " assistant", " named", " Sm", "ol", "LM", ",",
    " trained", " by", " H", "ugging", " Face",
)  # fmt: skip
GENERATION_PROMPT = (IM_START, *ROLE_TOKENS["assistant"], "\n")


def role_tokens(role: str) -> tuple[str, ...]:
    return ROLE_TOKENS.get(role, (role,))


def default_system_prompt(tokens: int) -> tuple[str, ...]:
    """A default system prompt of `tokens` tokens: SmolLM2's, cut or repeated."""
    size = len(SMOLLM2_SYSTEM_PROMPT)
    return tuple(SMOLLM2_SYSTEM_PROMPT[i % size] for i in range(tokens))


def chat_prompt_tokens(
    messages: list[tuple[str, str]], system_prompt_tokens: int = 0
) -> tuple[str, ...]:
    """The tokens a server prefills for (role, content) messages with its chat template.

    The list also lets the lab find the prefix a prompt cache would reuse.
    """
    tokens: list[str] = []
    if system_prompt_tokens > 0 and messages and messages[0][0] != "system":
        tokens += _message("system", default_system_prompt(system_prompt_tokens))
    for role, content in messages:
        tokens += _message(role, tuple(tokenize(content)))
    return (*tokens, *GENERATION_PROMPT)


def _message(role: str, content: tuple[str, ...]) -> list[str]:
    return [IM_START, *role_tokens(role), "\n", *content, IM_END, "\n"]


def with_images(prompt: tuple[str, ...], image_tokens: tuple[str, ...]) -> tuple[str, ...]:
    """The prompt with a vision model's image tokens before the assistant's turn."""
    if not image_tokens:
        return prompt
    cut = len(prompt) - len(GENERATION_PROMPT)
    return (*prompt[:cut], *image_tokens, *prompt[cut:])
