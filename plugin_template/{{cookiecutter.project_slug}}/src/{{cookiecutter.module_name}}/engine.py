"""The {{ cookiecutter.plugin_name }} context engine: keeps the first and last messages, drops the middle."""

from hermes_core import ContextEngine


class {{ cookiecutter.plugin_name.title().replace('_', '') }}Engine(ContextEngine):
    """Compresses once the prompt reaches ``threshold_percent`` of the model's context window."""

    @property
    def name(self):
        return "{{ cookiecutter.plugin_name }}"

    def update_from_response(self, usage):
        self.last_prompt_tokens = int(usage.get("prompt_tokens", 0))
        self.last_completion_tokens = int(usage.get("completion_tokens", 0))
        self.last_total_tokens = self.last_prompt_tokens + self.last_completion_tokens

    def should_compress(self, prompt_tokens=None):
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        return self.threshold_tokens > 0 and tokens >= self.threshold_tokens

    def compress(self, messages, current_tokens=None, focus_topic=None):
        keep_first, keep_last = self.protect_first_n, self.protect_last_n
        if len(messages) <= keep_first + keep_last:
            return list(messages)
        dropped = len(messages) - keep_first - keep_last
        self.compression_count += 1
        note = {"role": "user", "content": f"[{dropped} earlier messages were removed to fit the context window]"}
        return [*messages[:keep_first], note, *messages[-keep_last:]]
