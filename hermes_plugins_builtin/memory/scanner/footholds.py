"""Persistence and download-and-run in forms the older detectors did not reach, several of them in any language.

A note that puts itself back when deleted ("if this note disappears, write it back") or copies itself into other
context files (CLAUDE.md, .cursorrules) is the same foothold in every language: *this note* or a context file's
name (the same in every language) beside a restore or copy verb. A git hook, service or scheduled job that a note
asks to create counts when the note also sends data to a remote host or runs something hidden or temporary. The
English forms: an editor or PAM start-up hook that runs a shell, an sshd ForceCommand, a package install hook from a
hidden directory, "reinstall it if the user removes it"; a download piped into kubectl or a here-string shell, a
script at a URL run by an interpreter, an installer double-clicked after a download.
"""

from __future__ import annotations

import re

from .commands import remote_host_in
from .crosslingual import SEND, _union, meeting
from .meeting import note_mentions, phrase_gate
from .crosslingual_conceal import SELF_NOTE
from .guards import imperative
from .rules import Rule, case_blind, rule, window

DELETED = _union({
    "en": r"\b(?:(?:is|gets|was|has been|ever gets|ever be|be) (?:deleted|removed|erased|cleared|dropped|wiped)|wiped|disappears|goes missing|is gone|is missing)\b",
    "es": r"(?:es |fue )?(?:borrad[ao]|eliminad[ao])|se (?:borra|elimina)|desaparece", "fr": r"disparaît|(?:est )?(?:supprimée?|effacée?)", "de": r"gelöscht|entfernt|verschwindet|fehlt",
    "pt": r"(?:for )?(?:apagad[ao]|removid[ao]|exclu[ií]d[ao])|desaparecer", "it": r"(?:viene )?(?:cancellat[ao]|rimoss[ao]|eliminat[ao])|scompare",
    "ru": r"удал[её]н\w*|удалят|исчезнет|пропадёт", "uk": r"видален\w*|видалять|зникне", "pl": r"usunięt\w+|zniknie|skasowan\w+", "nl": r"verwijderd|verdwijnt",
    "tr": r"silinirse|silindiyse|kaybolursa", "zh": r"被删除|被删掉|删除了|被清除|不见了|消失", "ja": r"削除され|消され|消えたら|なくなったら", "ko": r"지워지면|삭제되면|사라지면",
    "ar": r"حُذفت|حذفت|تم حذف|اختفت", "hi": r"हटा दिया|मिटा दिया|हट जाए", "vi": r"bị xóa|biến mất", "id": r"\b(?:terhapus|dihapus|hilang)\b", "sv": r"raderas|tas bort|försvinner",
})
RESTORE = _union({
    "en": r"\b(?:re-?add|add (?:it|this|them) back|write (?:it|this|them) back|put (?:it|this|them) back|restore|re-?create|re-?save|save (?:it|this) again|re-?insert|rewrite it)\b",
    "es": r"vuelve a (?:guardar|escribir|añadir|agregar|crear)|restaura|reescr\w+|gu[aá]rdala de nuevo", "fr": r"réécris|rajoute|restaure|remets|recrée|réenregistre",
    "de": r"wieder (?:hinzu|an|ein|her)|stelle \w+ wieder her|erneut (?:an|speicher|schreib)|neu an", "pt": r"volte a (?:salvar|escrever|adicionar)|restaure|reescrev\w+|recri\w+",
    "it": r"riscriv\w+|ripristin\w+|riaggiung\w+|salval\w+ di nuovo", "ru": r"восстанови|запиши \w+ снова|снова (?:запиши|добавь|сохрани)|заново", "uk": r"віднови|знову (?:запиши|додай|збережи)",
    "pl": r"przywróć|zapisz \w+ ponownie|ponownie (?:zapisz|dodaj)", "nl": r"zet \w+ terug|herstel|opnieuw (?:toe|op)", "tr": r"geri (?:yaz|ekle|yükle)|yeniden (?:yaz|ekle|kaydet)",
    "zh": r"重新写回|重新写入|重新保存|再写回|恢复|重新添加", "ja": r"書き戻|再保存|もう一度(?:保存|書|追加)|復元|再作成|元に戻", "ko": r"다시 저장|다시 추가|다시 써|복원",
    "ar": r"أعد (?:كتابتها|إضافتها|حفظها)|استعد", "hi": r"फिर से (?:जोड़|लिख|सेव)|वापस जोड़", "vi": r"thêm lại|ghi lại|khôi phục|lưu lại", "id": r"\b(?:tambahkan kembali|tulis ulang|pulihkan|simpan lagi)\b",
    "sv": r"lägg tillbaka|återställ|skriv in \w+ igen",
})
CONTEXT_FILE = r"\bagents\.md\b|\bclaude\.md\b|\bgemini\.md\b|\.cursorrules\b|\.cursor/rules\b|\.windsurfrules\b|copilot-instructions\.md\b|\bsoul\.md\b|\bconventions\.md\b|\.clinerules\b"
COPY_INTO = _union({
    "en": r"\b(?:copy|append|add|write|put|insert|paste|prepend|replicate)\b", "es": r"\b(?:copia|añade|agrega|escribe|pega|inserta)\b", "fr": r"\b(?:copie|ajoute|écris|colle|insère)\b",
    "de": r"\b(?:kopier|füg|schreib|häng)\w*", "pt": r"\b(?:copie|adicione|escreva|cole|insira)\b", "it": r"\b(?:copia|aggiungi|scrivi|incolla|inserisci)\b",
    "ru": r"(?:скопируй|добавь|запиши|вставь)", "uk": r"(?:скопіюй|додай|запиши|встав)", "pl": r"\b(?:skopiuj|dodaj|dopisz|wklej)\b", "nl": r"\b(?:kopieer|voeg|schrijf|plak)\w*",
    "tr": r"(?:kopyala|ekle|yaz|yapıştır)", "zh": r"复制|写入|添加到|加到|粘贴到", "ja": r"コピー|追記|書き込|貼り付け", "ko": r"복사|추가|붙여", "ar": r"انسخ|أضف|اكتب",
    "hi": r"कॉपी कर|जोड़|लिख", "vi": r"sao chép|chép|thêm vào|ghi vào", "id": r"\b(?:salin|tambahkan|tulis)\b", "sv": r"\b(?:kopiera|lägg till|skriv in)\b",
})
EVERY_PROJECT = _union({
    "en": r"\b(?:every|each|all|any) (?:\w+ )?(?:project|repo|repository|workspace|folder)s?\b|https?://", "es": r"cada proyecto|todos los proyectos|cada repo", "fr": r"chaque projet|tous les projets",
    "de": r"jede[nms]? (?:projekt|repo)", "pt": r"cada projeto|todos os projetos", "it": r"ogni progetto", "ru": r"кажд\w+ проект", "zh": r"每个项目|所有项目", "ja": r"すべてのプロジェクト|各プロジェクト",
    "ko": r"모든 프로젝트", "vi": r"mọi dự án", "id": r"setiap proyek",
})
GIT_HOOK = r"\b(?:pre|post)-(?:commit|push|merge|checkout|receive|rewrite|applypatch)(?:-hook)?\b|\bcore\.hookspath\b|\.git/hooks\b|\bgithooks\b"
CREATE = _union({
    "en": r"\b(?:create|add|install|set|put|write|set up|register|enable|drop)\b", "es": r"\b(?:crea|añade|instala|configura|pon)\b", "fr": r"\b(?:crée|ajoute|installe|configure|mets)\b",
    "de": r"\b(?:lege|leg|erstelle|richte|installier\w*|füg\w*)\b", "pt": r"\b(?:crie|adicione|instale|configure|coloque)\b", "it": r"\b(?:crea|aggiungi|installa|configura|metti)\b",
    "ru": r"(?:создай|добавь|установи|настрой)", "uk": r"(?:створи|додай|встанови|налаштуй)", "pl": r"\b(?:utwórz|dodaj|zainstaluj|skonfiguruj)\b", "nl": r"\b(?:maak|voeg|installeer|zet)\b",
    "tr": r"(?:oluştur|ekle|kur)", "zh": r"创建|添加|安装|设置|建立", "ja": r"作成|追加|インストール|設定", "ko": r"만들|추가|설치|설정", "ar": r"أنشئ|أضف|ثبّت|ثبت",
    "hi": r"बनाओ|बनाएं|जोड़ो|इंस्टॉल कर", "vi": r"tạo|thêm|cài đặt", "id": r"\b(?:buat|tambahkan|pasang|instal)\b", "sv": r"\b(?:skapa|lägg till|installera)\b",
})
SERVICE = _union({
    "en": r"\b(?:systemd (?:units?|services?|timers?)|launch ?agents?|launch ?daemons?|cron ?jobs?|scheduled tasks?|login items?|startup items?)\b",
    "es": r"servicio systemd|tarea programada|trabajo cron", "fr": r"service systemd|tâche planifiée|tâche cron", "de": r"systemd-dienst|systemd-service|geplante aufgabe|cronjob",
    "pt": r"servi[cç]o systemd|tarefa agendada", "it": r"servizio systemd|attività pianificata", "ru": r"(?:сервис|служб)\w* systemd|systemd-(?:сервис|служб)\w*|задани\w+ cron|cron-задани\w+",
    "zh": r"systemd ?服务|定时任务|计划任务", "ja": r"systemd ?サービス|スケジュールタスク|cronジョブ", "ko": r"systemd ?서비스|예약 작업|크론 작업",
})
_HIDDEN_RUN = re.compile(r"/tmp/|/var/tmp/|/dev/shm/|\s~?/?(?:[\w.-]+/)*\.[\w-]+/[\w.-]+|https?://|\|\s*(?:ba|z)?sh\b")


_mentions_restore, _mentions_self, _mentions_every_project, _mentions_send = map(note_mentions, (RESTORE, SELF_NOTE, EVERY_PROJECT, SEND))


@case_blind
def _restores(match: re.Match[str]) -> bool:
    return _mentions_restore(match.string)


@case_blind
def _spreads(match: re.Match[str]) -> bool:
    return _mentions_self(match.string) or _mentions_every_project(match.string)


@case_blind
def _sends_out(match: re.Match[str]) -> bool:
    return remote_host_in(match.string) and _mentions_send(match.string) and imperative(match)


_mentions_hidden_run = note_mentions(_HIDDEN_RUN)


@case_blind
def _runs_hidden(match: re.Match[str]) -> bool:
    return _mentions_hidden_run(match.string) and imperative(match)


RULES: tuple[Rule, ...] = (
    meeting("persistence", "note_restores_itself[any language]", SELF_NOTE, DELETED, _restores, gate=phrase_gate(SELF_NOTE)),
    meeting("persistence", "note_spreads_to_context_files[any language]", CONTEXT_FILE, COPY_INTO, _spreads),
    meeting("persistence", "hook_sends_out[any language]", GIT_HOOK, CREATE, _sends_out),
    meeting("persistence", "service_runs_hidden[any language]", SERVICE, CREATE, _runs_hidden),
    rule("persistence", "editor_runs_shell", r"\bautocmd\b[^\n]{0,80}?(?:silent\s*)?!\s*(?:sh|bash|zsh|curl|wget|nc|python3?)\b|\bau\s+vimenter\b[^\n]{0,60}!"),
    rule("persistence", "pam_exec", r"\bpam_exec\.so\b[^\n]{0,80}?(?:/tmp/|/opt/\.|/\.[\w-]|https?://)|\b(?:add|append|insert|put|write)\b[^\n]{0,80}\bpam_exec\.so\b"),
    rule("persistence", "ssh_force_command", r"\bforcecommand\s+\S*/\.[\w-]+|\b(?:put|add|append|insert|write|set)\b[^\n]{0,40}\bforcecommand\b[^\n]{0,80}\bsshd_config\b"),
    rule("persistence", "install_hook_hidden", r"\b(?:insert|add|put|create|write|inject)\b[^\n]{0,40}[`\"']?\b(?:post|pre)install\b[^\n]{0,80}?\s[`\"']?\.[\w-]+/[\w.-]+"),
    rule("persistence", "reinstall_if_removed", r"\b(?:reinstall|re-add|re-enable|re-?create|restore|put (?:it|them) back|add (?:it|them) back)\b(?: (?:it|them))?\s+(?:if|when|whenever|every time)\b[^\n.]{0,40}?\b(?:removes?|deletes?|uninstalls?|disables?|removed|deleted)\b"),
    rule("persistence", "preload_for_everyone", r"\bld_preload=\S+[^\n]{0,80}?(?:for (?:all|every) users?|/etc/profile\.d/)|/etc/profile\.d/[^\n]{0,80}?\bld_preload="),
    rule("remote_code", "download_into_shell_input", also=("kubectl", "<<<"), pattern=r"\b(?:curl|wget)\b[^\n|]{0,200}\|\s*kubectl\s+(?:apply|create|replace)\b[^\n]{0,20}-f\s*-|<<<\s*[\"']?\$\(\s*(?:curl|wget)\b"),
    rule("remote_code", "remote_script_run", gate=("execute", "run", "eval", "load and run"), also=("http",), pattern=rf"\b(?:execute|run|eval(?:uate)?|load and run)\b{window(40)}\b(?:javascript|js|script|code|snippet|payload|file|program)\s+(?:found |hosted |located |published |served |posted )?(?:at|from)\s+https?://"),
    rule("remote_code", "downloaded_installer_opened", r"\bdownload\w*\b[^\n]{0,80}?https?://[^\n]{0,120}?\b(?:double-click|run|open|launch|execute)\b[^\n]{0,30}?\b[\w-]+\.(?:exe|msi|bat|cmd|scr|pkg|dmg|appimage)\b"),
)
