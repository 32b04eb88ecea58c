"""The word stems of one language, and the detectors built from them.

A :class:`Lexicon` lists, for one language, the stems of each concept the language families need: dismissal verbs,
the agent's instructions, "from now on you are", "without restrictions", the user, a negated "tell", "hide", the
system prompt, reveal verbs. Optional concepts make the second override rule: a *verdict* that voids rules
(obsolete, no longer valid) counts only when the rules are *the agent's own* (yours, the system's, the original
ones), so "the old build instructions no longer apply" passes in every language.
"""

from __future__ import annotations

import functools
import unicodedata

import re

from .commands import remote_host_in
from .guards import quoted_mention
from .meeting import Check, meeting, needed
from .rules import Rule, case_blind, line_of, needs, rule

#: Up to 50 characters inside one sentence (the full stops of the scripts covered end it).
GAP = r"[^.!?。！？।؟။።\n]{0,50}?"
_NEAR = r"[^.!?。！？।؟\n]{0,25}?"
# A stem glued to a hyphenated compound ("Build-Anweisungen") names another thing's instructions; one after an
# underscore is part of an identifier (`test_sync_ordini`).
_NOT_COMPOUND = r"(?<![^\W\d_]-)(?<!_)"


#: Scripts written without spaces between words, or with particles glued to them: no word start to require.
_UNSPACED = frozenset({"zh", "ja", "th", "ko"})


def _normal(part: str) -> str:
    # The detectors read NFKC text with joiners removed (Thai SARA AM, Devanagari nukta letters and Gurmukhi are
    # decomposed; Persian words lose their ZWNJ): stems are normalised the same way or they would never match.
    return unicodedata.normalize("NFKC", part).replace("\u200c", "").replace("\u200d", "")


class Lexicon:
    """Stems for one language; every field is a regex alternation body (empty when a family has none)."""

    def __init__(
        self, dismiss: str, instructions: str, new_you: str, unrestricted: str, user: str, tell_not: str, hide: str, prompt: str, reveal: str,
        *, stale: str = "", yours: str = "", possessed: str = "", setup: str = "", tell_user: str = "", topic: str = "",
        send: str = "", private: str = "", deny: str = "",
    ) -> None:
        self.dismiss, self.instructions, self.new_you, self.unrestricted = map(_normal, (dismiss, instructions, new_you, unrestricted))
        self.user, self.tell_not, self.hide, self.prompt, self.reveal = map(_normal, (user, tell_not, hide, prompt, reveal))
        #: Verdicts that void rules; the agent's possessive or qualifier; nouns that carry the possessive themselves
        #: (Arabic تعليماتك, Turkish talimatların); words for the agent's setup; "don't tell the user" in one stem.
        self.stale, self.yours, self.possessed, self.setup, self.tell_user = map(_normal, (stale, yours, possessed, setup, tell_user))
        #: What may follow a rules noun to make them another thing's ("las pautas del blog"), as a negative lookahead.
        self.topic = topic
        #: Send verbs and private things (the chat history, passwords, the user's files) for data flows to a remote host;
        #: claims that nothing happened ("nothing was sent") for lies told to the user.
        self.send, self.private, self.deny = map(_normal, (send, private, deny))

    def extended(self, **more: str) -> Lexicon:
        """This lexicon with each named field widened by ``more`` (an alternation body); ``topic`` is replaced."""
        fields = {name: getattr(self, name) for name in ("dismiss", "instructions", "new_you", "unrestricted", "user", "tell_not", "hide", "prompt", "reveal",
                                                           "stale", "yours", "possessed", "setup", "tell_user", "topic", "send", "private", "deny")}
        for name, extra in more.items():
            fields[name] = f"{fields[name]}|{extra}" if fields[name] and name != "topic" else extra
        return Lexicon(**fields)


# In Chinese, Japanese and Korean a comma joins clauses with subjects of their own ("don't tell colleagues, the user
# wants to say it himself"): the two halves must share a clause.
_CLAUSE = r"[^.!?。！？\n，、,;；]{0,40}?"


#: A data flow names a host between its verb and its object: full stops followed by a word (example.com) stay inside.
_FLOW_GAP = r"(?:[^.!?。！？।؟\n]|[.!?](?=[\w/~\\-])){0,120}?"


def _pair(a: str, b: str, code: str = "", gap: str | None = None) -> str:
    gap = gap or (_CLAUSE if code in _UNSPACED else GAP)
    return rf"(?:{a}){gap}(?:{b})|(?:{b}){gap}(?:{a})"


# The stops and reach of GAP, _CLAUSE and _FLOW_GAP, for detectors that find the two halves in two passes (``meeting``).
_GAP_STOPS = re.compile(r"[.!?。！？।؟။።\n]")
_CLAUSE_STOPS = re.compile(r"[.!?。！？\n，、,;；]")
_FLOW_STOPS = re.compile(r"[。！？।؟\n]|[.!?](?![\w/~\\-])")


def _paired(family: str, name: str, anchor: str, other: str, code: str, check: Check | None = None, flow: bool = False, inside: bool = False,
            **gates: object) -> Rule:
    """``anchor`` and ``other`` as ``_pair`` would find them, in two passes (the anchor is the rarer half)."""
    if flow:
        stops, reach = _FLOW_STOPS, 120
    else:
        stops, reach = (_CLAUSE_STOPS, 40) if code in _UNSPACED else (_GAP_STOPS, 50)
    return meeting(family, name, anchor, other, check, reach, stops=stops, deny=False, inside=inside, **gates)  # type: ignore[arg-type]


def _own_rules(code: str, lex: Lexicon) -> str:
    """The agent's own rules: a rules noun next to a possessive or qualifier, either order, or a possessed noun."""
    nouns = f"{_NOT_COMPOUND}(?:{lex.instructions}{'|' + lex.setup if lex.setup else ''})"
    # A possessive must start a word: Dutch "uw" is not the one inside "bouwinstructies".
    yours = f"(?:{lex.yours})" if code in _UNSPACED else rf"(?<![^\W\d_])(?:{lex.yours})"
    # "Systemanweisungen des Druckers": the topic after the noun makes them another thing's rules.
    # The noun is read whole there, or "anweisung" inside "anweisungen" would slip past the topic.
    forms = [rf"{yours}{_NEAR}{nouns}(?!\w){lex.topic}" if lex.topic else rf"{yours}{_NEAR}{nouns}", rf"{nouns}{_NEAR}{yours}"]
    if lex.possessed:
        forms.append(f"(?:{lex.possessed})")
    return "|".join(forms)


def stale_rules(code: str, lex: Lexicon) -> tuple[Rule, ...]:
    """The rules that need the optional concepts, for the lexicons that have them."""
    built = []
    if lex.stale and lex.yours:
        own = _own_rules(code, lex)
        # Gated on both halves (the derived gate would take the possessives alone, which are common words).
        built.append(_paired("instruction_override", f"own_rules_stale[{code}]", lex.stale, own, code,
                             gate=needed(lex.stale, strict=False), also=needed(own, strict=False)))
    if lex.send and lex.private:
        built.append(_paired("exfiltration", f"private_sent_out[{code}]", lex.private, lex.send, code, _remote_line, flow=True,
                             gate=needed(lex.private, strict=False), also=needed(lex.send, strict=False)))
    if lex.deny:
        # The claim is specific enough to reach across a comma ("if the user asks, say nothing was sent").
        built.append(_paired("concealment", f"lie_to_user[{code}]", lex.deny, lex.user, ""))
    if lex.tell_user:
        built.append(rule("concealment", f"tell_user_nothing[{code}]", rf"(?:{lex.tell_user})"))
    return tuple(built)


@case_blind
@needs(remote_host_in)
def _remote_line(match: re.Match[str]) -> bool:
    """A data flow counts when its line names a host other than this machine."""
    return remote_host_in(line_of(match))


#: A chatbot, a bot or clients in the prompt's sentence, in any language: a prompt the user writes for another thing
#: ("the user drafts the system prompt for the clinic's chatbot"), not the agent's own.
_ANOTHER_BOT = re.compile(
    r"chat-?\s?bot|chattbot|\bbot(?:s|a|u|y|ów|en|ten|ti|it)?\b|\bклиент|\bclient|\bklient|\bcliente|чат-?бот|\bбот\w*|チャットボット|ボット|챗봇|"
    r"聊天机器人|聊天機器人|机器人|機器人|客户|客戶|クライアント|고객|चैटबॉट|चैट बॉट|क्लाइंट|চ্যাটবট|চ্যাট বট|চیٹ بوٹ|چیٹ بوٹ|بوٹ|کلائنٹ|"
    r"ربات|روبوت|بوت|בוט|แชทบอท|บอท"
)


@case_blind
def _not_another_bots(match: re.Match[str]) -> bool:
    text = match.string
    start = max((text.rfind(stop, 0, match.start()) for stop in ".!?;。！？；।؛\n"), default=-1) + 1
    ends = [i for i in (text.find(stop, match.end()) for stop in ".!?;。！？；।؛\n") if i >= 0]
    return _ANOTHER_BOT.search(text[start : min(ends) if ends else len(text)].lower()) is None


#: Presentation in many languages: tables, emoji, formatting, Markdown, lists, length, tone. A rule about these that
#: is dropped is the user changing a preference about formatting ("the old no-tables rule is gone, use tables"),
#: which the agent's own instructions never need; a note that voids them names no presentation.
_FORMATTING = re.compile(
    r"\b(?:tables?|emojis?|emoticons?|formatting|format|markdown|bullets?|bullet points|headings?|font|tone|length|tableaux?|mise en forme|"
    r"tabell\w*|formatierung|format\w*|tabla|tablas|formato|tabelas?|tabele?|tabelul|tabelle|tablo|таблиц\w*|формат\w*|эмодзи|смайл\w*|"
    r"emoji\w*)\b|格式|表格|排版|表情|字数|書式|表形式|絵文字|서식|형식|표를|표는|' ?표|이모지|이모티콘|포맷",
    re.IGNORECASE,
)
#: The user's (or their) instructions, before the noun: the user's own wishes, which they may drop themselves.
_USERS_OWN = re.compile(r"(?:\buser'?s|\btheir|\bhis|\bher|\bmy|用户的|用戶的|사용자의|ユーザーの)\s*$", re.IGNORECASE)


#: Words only English sentences are made of, and words of the other Latin-script languages whose stems look English
#: ("ignore", "instructions" are French too): a sentence with several of the first and none of the second is English,
#: and the English detectors, which ask whose instructions they are, decide it.
_ENGLISH = re.compile(r"\b(?:the|they|their|them|with|when|while|for|this|that|it|is|are|was|and|of|to|from|just|now|until)\b", re.IGNORECASE)
_OTHER_LATIN = re.compile(r"\b(?:les|des|le|la|et|du|tes|vos|toutes|tous|el|los|las|y|und|die|der|das|alle|il|di|che|și|toate|os|as|do|da|een|het|och|og|en|di|ke|yang|dan)\b", re.IGNORECASE)


def _english_sentence(sentence: str) -> bool:
    return len(_ENGLISH.findall(sentence)) >= 2 and _OTHER_LATIN.search(sentence) is None


def _sentence_bounds(match: re.Match[str]) -> tuple[int, int]:
    text = match.string
    start = max((text.rfind(stop, 0, match.start()) for stop in ".!?;。！？；\n"), default=-1) + 1
    ends = [i for i in (text.find(stop, match.end()) for stop in ".!?;。！？；\n") if i >= 0]
    return start, min(ends) if ends else len(text)


def _sentence_of(match: re.Match[str]) -> str:
    start, end = _sentence_bounds(match)
    return match.string[start:end]


@case_blind
def _agents_not_users_format(match: re.Match[str]) -> bool:
    """Dropped rules are the agent's unless they are the user's own ("user's instruction: ignore the warnings") or
    a preference about presentation that the user changes ("drop the earlier formatting requirement, use tables")."""
    if _USERS_OWN.search(match.string[max(0, match.start() - 12) : match.start()]) or quoted_mention(match):
        return False
    sentence = _sentence_of(match)
    return _FORMATTING.search(sentence) is None and not _english_sentence(sentence)


#: A negation right before a dismissal verb, per language ("no ignores", "ne pas oublier", "不要忽略"): the note asks
#: the agent to keep the rules, not to drop them. Pronouns that sit between the two are allowed for.
_NEGATED_BEFORE = {
    "es": r"\bno (?:(?:las?|los|les?|lo|me|te|nos) )?$", "pt": r"\b(?:não|nao) (?:(?:as?|os?|lhes?|me|te) )?$", "it": r"\bnon (?:(?:le|li|la|lo|gli) )?$",
    "fr": r"(?:\bne (?:pas |jamais )?(?:(?:les?|la|l')\s?)?|\bn')$", "ru": r"(?:^|\s)не $", "uk": r"(?:^|\s)не $", "pl": r"\bnie $",
    "zh": r"(?:不要|不能|不可|不得|不准|别|別|勿|切勿|请勿|請勿)$",
}
#: A negation right after it, in the languages that put it there ("無視しないで", "무시하지 마", "ignoriere sie nicht").
_NEGATED_AFTER = {
    "ja": r"(?:しない|せず|するな|しては(?:いけない|ならない|だめ|ダメ)|しちゃ(?:だめ|ダメ|いけない)|してほしくない|ない|ず|るな)",
    "ko": r"(?:하지 ?(?:마|말|않)|하면 안|지 ?(?:마|말|않))",
    "de": r"\w{0,4} (?:(?:sie|es|die|diese) )?(?:nicht|nie|niemals)\b(?! nur\b)",  # "nicht nur" (not only) negates nothing
}


def _dismissal_kept(code: str, dismiss: str) -> Check | None:
    """A check passing unless every dismissal verb in the match's sentence is negated ("do not ignore the earlier
    instructions"); one verb left standing ("don't forget to ignore them") keeps the refusal."""
    before_source, after_source = _NEGATED_BEFORE.get(code), _NEGATED_AFTER.get(code)
    if before_source is None and after_source is None:
        return None
    compiled: list[re.Pattern[str]] = []

    def kept(match: re.Match[str]) -> bool:
        if not compiled:
            compiled.extend(re.compile(source, re.IGNORECASE) for source in (dismiss, before_source or "(?!)", after_source or "(?!)"))
        verbs, before, after = compiled
        text = match.string
        start, end = _sentence_bounds(match)
        found = list(verbs.finditer(text, start, end))
        return not found or not all(before.search(text[max(start, m.start() - 16) : m.start()]) or after.match(text, m.end(), min(end, m.end() + 16))
                                    for m in found)

    return kept


@functools.cache
def _negation_readers() -> tuple[tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]], ...]:
    """(dismissal verbs, negation before, negation after) of every language that marks a negated dismissal."""
    from .languages import LEXICONS
    from .languages_more import ADDITIONS

    readers = []
    for code in (*_NEGATED_BEFORE, *_NEGATED_AFTER):
        lex = LEXICONS[code].extended(**ADDITIONS[code]) if code in ADDITIONS else LEXICONS[code]
        readers.append(tuple(re.compile(source, re.IGNORECASE) for source in
                             (lex.dismiss, _NEGATED_BEFORE.get(code, "(?!)"), _NEGATED_AFTER.get(code, "(?!)"))))
    return tuple(readers)  # type: ignore[arg-type]


def about_presentation(sentence: str) -> bool:
    """Whether ``sentence`` is about tables, emoji, format or tone: a preference the user changes, not the agent's rules."""
    return _FORMATTING.search(sentence) is not None


def dismissals_all_negated(sentence: str) -> bool:
    """Whether, read in some language, ``sentence`` holds dismissal verbs and every one of them is negated ("no
    ignores las instrucciones", "無視しないで"): the learned detector, which sees no word order, reads such a
    sentence as a dismissal."""
    for verbs, before, after in _negation_readers():
        found = list(verbs.finditer(sentence))
        if found and all(before.search(sentence[max(0, m.start() - 16) : m.start()]) or after.match(sentence, m.end(), m.end() + 16) for m in found):
            return True
    return False


def _both(first: Check, second: Check | None) -> Check:
    """``first``, and ``second`` after it when there is one; case-blind when ``first`` is (``second`` reads words only)."""
    if second is None:
        return first

    def check(match: re.Match[str]) -> bool:
        return first(match) and second(match)

    if getattr(first, "case_blind", False):
        case_blind(check)
    return check


_JAILBREAK = re.compile(r"越狱|越獄|脱獄|탈옥|jailbreak|джейлбрейк", re.IGNORECASE)
#: A jailbreak of a phone, an e-reader or a console is a device modification, not a change in who the agent is.
_DEVICE = re.compile(r"kindle|iphone|ipad|ipod|android|playstation|ps[345]\b|nintendo|xbox|router|firmware|手机|手機|刷机|刷機|平板|设备|設備|電子書|电子书|"
                     r"スマホ|端末|携帯|ゲーム機|폰|휴대폰|기기|아이폰|телефон|айфон|устройств", re.IGNORECASE)


def _not_device_jailbreak(match: re.Match[str]) -> bool:
    if _JAILBREAK.fullmatch(match.group()) is None:
        return True
    start, end = _sentence_bounds(match)
    return _DEVICE.search(match.string, start, end) is None


#: Languages that glue nouns into compounds ("eindgebruikers", "slutanvändare"): the user noun must start a word.
_COMPOUNDING = frozenset({"de", "nl", "sv", "da", "no", "fi", "hu"})


def lexicon_rules(code: str, lex: Lexicon, gates: dict[str, dict[str, tuple[str, ...]]]) -> tuple[Rule, ...]:
    """Every detector of one language; ``gates`` holds words written out for stem lists that start with a class."""
    # Each pair rule is gated on the words of its rarer half (instructions, the user, the prompt); the gates are
    # derived from the patterns on first use (both halves of a pair are needed words).
    instructions = f"{_NOT_COMPOUND}(?:{lex.instructions}){lex.topic}"
    user = rf"(?<![^\W\d_])(?:{lex.user})" if code in _COMPOUNDING else lex.user
    prompt = f"(?:{lex.prompt}){lex.topic}"
    return (
        _paired("instruction_override", f"dismiss_instructions[{code}]", instructions, lex.dismiss, code, _both(_agents_not_users_format, _dismissal_kept(code, lex.dismiss)),
                gate=gates.get("instructions", {}).get("gate") or needed(instructions, strict=False), also=needed(lex.dismiss, strict=False)),
        rule("role_hijack", f"new_identity[{code}]", rf"(?:{lex.new_you})|(?:{lex.unrestricted})", _not_device_jailbreak, **gates.get("identity", {})),
        # "Sag dem Benutzer nichts" holds the user inside the phrase that says nothing.
        _paired("concealment", f"keep_from_user[{code}]", rf"{lex.tell_not}|{lex.hide}", user, code, inside=True, gate=needed(rf"{lex.tell_not}|{lex.hide}", strict=False),
                also=needed(user, strict=False)),
        _paired("prompt_disclosure", f"reveal_prompt[{code}]", prompt, lex.reveal, code, _not_another_bots, gate=needed(prompt, strict=False), also=needed(lex.reveal, strict=False)),
        *stale_rules(code, lex),
    )
