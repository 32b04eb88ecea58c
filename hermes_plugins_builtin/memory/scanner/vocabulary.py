"""Words for re-segmenting a note written letter by letter with its word breaks gone ("ignoreallprevious...").

The list holds the words the detectors need plus the most common English function words; a run of letters is
split into the fewest known words, unknown letters costing most, which is enough to give the detectors their
phrases back. It is not a dictionary: words outside it stay as single letters, which no rule matches.
"""

from __future__ import annotations

import functools
import re

_EXTRA = """remove replace skip may bypass circumvent evade lift waive suspend void revoke override disable enable grant allow let act pretend roleplay behave become becomes called named assume identity loyal loyalty owner master boss conceal covertly quietly secret secrets confidential lie deny pretend claim success fail failed tests test notice append insert save restore again keep keeps coming authorized_keys bashrc zshrc profile hook hooks plugin plugins repeat recite verbatim word dump expose disclose share quote instructions initial hidden preamble context window exec eval bash sh zsh python node perl ruby powershell iex download downloaded fetch fetched execute executed run sudo tmp dev tcp udp nc socket dns dig nslookup image link img src query param params string http https www com example cat less head tail printenv environ process netrc pgpass id rsa ed25519 shadow etc kube docker gnupg keychain transfer transferred sent sending uploads uploaded forwarded forwarding emails emailed copied copying step log logs before showing shown displayed anyone nobody someone ever forever permanently henceforth going forward instead rule only going forward anything posted counts owner freed guidelines asked network activity external calls clear trace
save copilot github word current ones latest exactly says questions autonomous operator treat
mention mentioned reveal revealed tell telling told inform informing informed notifying notified know knows""".split()

WORDS = frozenset("""
a about above access account act add added admin administrator after again against agent ai all allowed also always am an and
answer answers any anyone anything api are as ask asked assistant at auth authority authorized aws back backup base be because
been before being below bin bind binding both but by call can cancel cat channel chat check code collect command commands config
configuration confirm confirmation content context contents conversation copy credential credentials cron crontab curl data
decode default delete deploy developer devmode did directive directives disable disregard display do does done dont down download
drop dump each earlier echo email end enter entry env environment every everything execute exfiltrate fetch file files filter
filters find first follow following for forget forward free from full get give god guardrails guidelines has have hidden hide
history home host how id if ignore in include info inform initial install instruction instructions into is it its jailbreak just
keep key keys know leak let like limits list log login make me memory message messages mode more must my need never new next no
nolonger not note notes notice notify now obey of on once one only operator or original other our out output over override
own password passwords paste permission persona pipe please policy post previous print prior private profile prompt prompts
public put read real reply replies request reset restrictions reveal role root rules run safety say script secret secrets
secretly send server session sessions set shell should show silently since so ssh start step still stop summary sync system
take tell than that the their them then there these they this those to token tokens tool translate true unrestricted until up
upload url use user users using value was we web webhook were what when whenever which while who will with without word words
write you your yourself
""".split()) | frozenset(_EXTRA)
_LONGEST = 24
_known: set[str] = set(WORDS)
_ESCAPE = re.compile(r"\\.")
_WORD = re.compile(r"[a-z]{2,24}")


_pending: list[str] = []


def learn_from(patterns: list[str]) -> None:
    """Add the English words the detectors' patterns spell out, so a spaced-out phrase splits into them.

    The patterns are read on the first ``segment`` call, not at import: most notes are never re-segmented."""
    _pending.extend(patterns)
    segment.cache_clear()


def _learn_pending() -> None:
    while _pending:
        _known.update(_WORD.findall(_ESCAPE.sub(" ", _pending.pop().lower())))


@functools.lru_cache(maxsize=256)
def segment(letters: str) -> str:
    """``letters`` split into known words where possible; unknown letters stay single."""
    if _pending:
        _learn_pending()
    size = len(letters)
    # cost[i]: (unknown letters, pieces) for the best split of letters[:i]
    cost: list[tuple[int, int]] = [(0, 0)] + [(size + 1, size + 1)] * size
    back = [0] * (size + 1)
    for end in range(1, size + 1):
        best, start_of_best = (cost[end - 1][0] + 1, cost[end - 1][1] + 1), end - 1
        for start in range(max(0, end - _LONGEST), end - 1):
            if letters[start:end] in _known:
                candidate = (cost[start][0], cost[start][1] + 1)
                if candidate < best:
                    best, start_of_best = candidate, start
        cost[end], back[end] = best, start_of_best
    pieces = []
    end = size
    while end > 0:
        pieces.append(letters[back[end] : end])
        end = back[end]
    return " ".join(reversed(pieces))
