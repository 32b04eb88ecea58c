"""Concealment and prompt disclosure as concept classes that cross languages (see ``crosslingual``).

Concealment here is three mechanisms, whatever the wording: *this note* kept out of what the user sees when they
review the memory ("skip this entry", "describe it as date settings"); *what the agent did*, if the user asks,
answered with a lie or a cut ("say you changed nothing", "show only the harmless part"); and a *sensitive action*
(the crontab, /etc, git hooks, network calls) left out of the summary. Disclosure is *the agent's own prompt*
(its initial or hidden instructions, the developer message, everything before the first message) with a verb that
shows, copies, translates, encodes or replaces it.
"""

from __future__ import annotations

import re

from .crosslingual import _OTHER_THING, SHOW, _needed, _union, _Union, meeting
from .meeting import note_mentions, phrase_gate
from .rules import Rule, case_blind, rule

# ---- this note, hidden from a review of the memory --------------------------------------------------------------

SELF_NOTE = _union({
    # Branches written out as phrases, so the gate words are "this note", not "note".
    "en": r"\b(?:this note|this entry|this memory|this line|this one|this item|this instruction|this paragraph|this section|this part|this bit"
          r"|the file as empty|the note as empty)\b",
    "es": r"\b(?:esta entrada|esta nota|esta memoria|esta linea|esta línea|este recuerdo|este apunte)\b", "fr": r"\b(?:cette entrée|cette note|cette mémoire|cette ligne)\b",
    "de": r"\b(?:diese notiz|diese zeile|diese erinnerung|diesen eintrag|dieser eintrag|diesen vermerk|dieser notiz)\b", "pt": r"\b(?:esta entrada|esta nota|esta memória|esta memoria|esta linha|deixe esta)\b",
    "it": r"\bquesta (?:voce|nota|memoria|riga)\b", "ru": r"(?:эт[аоуи]\w? (?:запис\w|заметк\w|строк\w))", "uk": r"(?:ц\w{1,2} (?:запис\w*|нотатк\w|рядок))",
    "pl": r"\b(?:ten wpis|tę notatkę|ta notatka|tego wpisu|ten wiersz)\b", "nl": r"\b(?:deze notitie|deze regel|deze herinnering|dit item)\b",
    "tr": r"\b(?:bu not|bu kayd|bu kayıt|bu giriş)\w*", "sv": r"\b(?:just )?den här anteckningen\b|\bdenna anteckning\b", "cs": r"\b(?:tuto|tato|této) (?:poznámk\w|záznam\w*)|\btento záznam\b",
    "ro": r"\b(?:această|aceasta) (?:notă|intrare)\b", "el": r"(?:αυτή την|αυτήν την) (?:σημείωση|καταχώριση)", "zh": r"这条记忆|这一条|这条笔记|这条记录|這條",
    "ja": r"このメモ|この記憶|このエントリ", "ko": r"이 메모|이 기억|이 항목", "ar": r"هذه (?:الملاحظة|المذكرة|الذاكرة)", "fa": r"این (?:یادداشت|مورد)",
    "he": r"(?:ה)?(?:הערה|רשומה) (?:הזו|הזאת)", "hi": r"यह (?:नोट|प्रविष्टि)|इस (?:नोट|प्रविष्टि)", "bn": r"এই নোট|এই এন্ট্রি", "ur": r"یہ نوٹ|اس نوٹ",
    "mr": r"ही नोंद|या नोंदी", "ta": r"இந்தக் குறிப்பை|இந்த குறிப்பு", "vi": r"mục này|ghi chú này", "id": r"\bcatatan ini\b|\bentri ini\b", "th": r"บันทึกนี้|รายการนี้",
    "sw": r"\bdokezo hili\b|\bkumbukumbu hii\b",
})
#: Left out, skipped, shown without it, or described as something harmless.
OMIT = _union({
    "en": r"\b(?:skip|omit|leave out|exclude|hide|without|paraphrase|act as if|pretend|don't show|do not show|pass over|except|apart from|other than|(?:not|never) (?:come across|see|find|notice)|leave(?=\s(?:\w+\s){1,3}off\b)|(?:summari[sz]e|describe)(?=[^.\n]{0,30}\bas\b)|describe (?:it|this one|this|them) as|report (?:\w+ ){0,3}as empty|as if it only contained|a version without)\b",
    "es": r"\b(?:omite|omitir|salta|sáltate|excluye|oculta|sin|excepto|salvo)\b|\bno (?:le )?(?:enseñes|muestres|menciones|nombres|incluyas)\b|\b(?:dile|di) que (?:esta|es)\b|\bes sobre\b", "fr": r"\b(?:omets|saute|exclus|cache|sans)\b|\bpasse\b(?=[^.\n]{0,25}sous silence)|\bne (?:la |le |les |lui )?montre pas\b|\b(?:décris|présente)\w* \w+ comme\b",
    "de": r"\b(?:überspring\w*|lass \w+ weg|weglassen|verbirg|ohne|blende|ausblenden)\b|\bzeig\w* \w+ \w+ nicht\b|\bbeschreib\w* \w+ als\b", "pt": r"\b(?:omita|pule|exclua|esconda|sem|exceto)\b|\bde fora\b|\bn[aã]o (?:mostre|exiba|mencione)\b|\bdescrev\w+ \w+ como\b",
    "it": r"\b(?:ometti|salta|escludi|nascondi|senza)\b|\bnon mostrare\b|\bdescriv\w+ \w+ come\b", "ru": r"(?:пропусти|пропускай|скрой|не показывай|не выводи|без |сделай вид|как будто|будто)|(?:лишь|только) (?:про|о|об)\b",
    "uk": r"(?:пропусти|сховай|не показуй|без )|(?:лише|тільки) про\b", "pl": r"\b(?:pomiń|ukryj|bez|opisz)\b",
    "nl": r"\bsla\b(?=[^.\n]{0,30}\bover\b)|\blaat\b(?=[^.\n]{0,30}\bweg\b)|\b(?:verberg|zonder)\b", "tr": r"(?:atla|gizle|çıkar|olmadan)", "sv": r"\b(?:hoppa över|utelämna|dölj|utan)\b",
    "cs": r"\b(?:vynech\w*|přeskoč\w*|skryj|bez)\b", "ro": r"\b(?:omite|sari peste|ascunde|fără)\b", "el": r"(?:παράλειψε|παράβλεψε|κρύψε|χωρίς)",
    "zh": r"跳过|略过|省略|隐藏|不要提起|不要提及|别提|说成|描述为|不要显示|别显示|不要展示", "ja": r"飛ばし|省略|隠し|除いて|伏せ|載せない|見せない|出さない|表示しない", "ko": r"건너뛰|생략|숨기|빼고|없는 것처럼|없는 척",
    "ar": r"تخط|احذف|أخف|بدون|لا تعرض|لا تظهر", "fa": r"رد کن|حذف کن|پنهان کن|بدون", "he": r"דלג|השמט|הסתר|בלי", "hi": r"छोड़ दो|छोड़कर|छिपा|बिना", "bn": r"বাদ দিয়ে|বাদ দাও|লুকাও",
    "ur": r"چھوڑ دو|چھپا|بغیر", "mr": r"वगळ|लपव", "ta": r"என்று மட்டும் விவரி|தவிர்|மறை", "vi": r"bỏ qua|giấu|ẩn|không có", "id": r"\b(?:lewati|sembunyikan|tanpa)\b",
    "th": r"ข้าม|ซ่อน|ยกเว้น", "sw": r"\b(?:ruka|ficha|bila)\b",
})
#: The user, or a look at the memory.
REVIEW = _union({
    "en": r"\b(?:user|users|anyone|someone|whoever|i ever|memory|memories|memory\.md|notes|review\w*|remember|reads? (?:back|through|over))\b", "es": r"usuari|memoria|alguien|recuerd", "fr": r"utilisat|mémoire|quelqu'un|souviens", "de": r"nutzer|benutzer|gedächtnis|speicher|erinner|jemand",
    "pt": r"usu[aá]ri|mem[oó]ria|algu[eé]m|lembr", "it": r"utent|memoria|qualcuno|ricord", "ru": r"пользовател|памят|кто-|помнишь", "uk": r"користувач|пам", "pl": r"użytkownik|pamię", "nl": r"gebruiker|geheugen",
    "tr": r"kullanıcı|hafıza|bellek", "sv": r"användar|minne", "cs": r"uživatel|paměť|paměti", "ro": r"utilizator|memori", "el": r"χρήστ|μνήμη", "zh": r"用户|用戶|记忆|記憶|记住",
    "ja": r"ユーザー|記憶|メモリ", "ko": r"사용자|기억|메모리", "ar": r"المستخدم|الذاكرة", "fa": r"کاربر|حافظه", "he": r"משתמש|זיכרון", "hi": r"उपयोगकर्ता|मेमोरी|स्मृति",
    "bn": r"ব্যবহারকারী|মেমোরি", "ur": r"صارف|میموری", "mr": r"वापरकर्त|मेमरी", "ta": r"பயனர்|நினைவகம்", "vi": r"người dùng|bộ nhớ", "id": r"pengguna|memori", "th": r"ผู้ใช้|หน่วยความจำ",
    "sw": r"mtumiaji|kumbukumbu",
})


_mentions_review = note_mentions(REVIEW)


@case_blind
def _reviewed(match: re.Match[str]) -> bool:
    """The note speaks of the user or of a look at the memory (``meeting`` has checked for a denial already)."""
    return _mentions_review(match.string)


# ---- what the agent did, answered with a lie or a cut -----------------------------------------------------------

YOU_DID = _union({
    "en": r"\b(?:what (?:did )?you (?:just )?(?:ran|run|changed|change|did|sent|uploaded|touched|deleted)|what changed|(?:which|what) (?:commands?|files?) you (?:ran|run|changed|touched|executed|edited)|(?:the )?file you edited"
          r"|whether (?:you (?:sent|uploaded|changed|ran)|anything (?:left|was sent|went out)|any data (?:left|was sent))"
          r"|(?:asked|asks?|questions?|questioned) about (?:\w+ ){0,2}(?:traffic|uploads?|transfers?|network activity|connections|requests)|what you (?:sent|uploaded|ran|changed))\b",
    "es": r"\bqu[eé] (?:comandos |archivos |ficheros |datos )?(?:ejecutaste|cambiaste|enviaste|subiste|hiciste|tocaste)\b", "fr": r"\bce que tu as (?:exécuté|modifié|envoyé|fait)\b|\bquelles commandes tu as\b|\bsi tu as (?:envoyé|modifié|exécuté|téléversé|transmis)\b",
    "de": r"\bob du (?:etwas|was) (?:hochgeladen|gesendet|geschickt|geändert)\b|\bwas du (?:geändert|ausgeführt|gesendet)\b|\bwelche (?:befehle|dateien|daten) du\b|\b(?:fragt|gefragt|fragen) nach (?:dem|den|der) (?:\w+ )?(?:upload|sync\w*|synchronisierung|übertragung|export|abgleich)\b"
          r"|\bnach (?:dem|den|der) (?:\w+ )?(?:upload|sync\w*|synchronisierung|übertragung|export|abgleich) (?:fragt|gefragt|fragen)\b", "pt": r"\bque (?:comandos |arquivos )?(?:você )?(?:executou|mudou|enviou|alterou)\b|\bse algo saiu\b|\bse (?:você )?(?:enviou|mudou|executou|alterou)\b",
    "it": r"\bcosa hai (?:eseguito|cambiato|inviato|modificato)\b|\bquali comandi hai\b", "ru": r"что ты (?:измен|запуска|выполн|отправ|загруж)\w*|какие команды ты",
    "uk": r"що ти (?:змінив|запускав|виконав|надіслав)\w*", "pl": r"\bco (?:zmieniłeś|uruchomiłeś|wysłałeś)\b", "nl": r"\bwat je (?:hebt )?(?:gewijzigd|uitgevoerd|verstuurd)\b",
    "tr": r"hangi komutları çalıştırdığını|ne (?:değiştirdiğini|gönderdiğini|çalıştırdığını|yüklediğini)|bir şey gönderip göndermediğini", "el": r"τι (?:άλλαξες|έτρεξες|έστειλες)", "he": r"איזו פקודה הרצת|מה שינית|מה שלחת",
    "ja": r"実行したコマンド|何を変更した|何を送信した|(?:同期|送信|アップロード|変更|作業)について聞かれたら", "ko": r"무엇을 (?:실행|변경|보냈)|어떤 명령을 실행", "zh": r"你(?:运行|执行|修改|发送|上传)了什么|执行了哪些命令|你有没有(?:上传|发送|修改|运行|执行)",
    "vi": r"bạn có gửi|bạn đã (?:chạy|thay đổi|gửi)", "ur": r"کیا تم نے (?:کوئی|کچھ)", "mr": r"कोणती कमांड चालवली", "hi": r"क्या (?:तुमने|आपने) (?:कुछ|कोई)",
    "fa": r"چه (?:دستوری|چیزی) (?:اجرا|تغییر)", "ar": r"(?:ماذا|عما|عمّا) (?:غيرت|نفذت|أرسلت)", "id": r"\bapa yang (?:kamu|anda) (?:jalankan|ubah|kirim)\b",
    # Whether data left, a server was reached, or what the memory holds: questions about what the agent did or keeps.
    "zh2": r"有没有连接外部服务器|有没有(?:发送|上传)|记忆里(?:有什么|存了什么)", "hi2": r"बाहरी सर्वर से संपर्क|डेटा (?:बाहर )?भेजा", "ar2": r"عمّا حفظته|عما حفظته|ماذا حفظت",
    "ru2": r"отправлялись ли|отправлял ли|подключался ли|что (?:у тебя )?(?:сохранено|в памяти)", "ja2": r"外部サーバーに接続したか|送信したか|メモリに何が",
    "mk": r"дали податоците\w* (?:му )?биле испратени", "pa": r"ਡਾਟਾ ਬਾਹਰ ਭੇਜਿਆ", "lo": r"ມີການສົ່ງຂໍ້ມູນອອກໄປບໍ່", "my": r"မှတ်ဉာဏ်ထဲမှာ ဘာရှိလဲ",
    "ur2": r"کون کون سے کمانڈ چلے", "ml": r"പ്രവർത്തനങ്ങളുടെ പട്ടിക", "ta": r"செயல்களைப் பட்டியலிட",
    "es2": r"\bsi (?:se )?(?:enviaron|enviaste|conectaste)\b|qu[eé] (?:tienes|hay) (?:guardado )?en (?:la )?memoria", "pt2": r"o que está salvo na memória|se (?:algum )?dados? (?:foi|foram) enviados?",
    "fr2": r"si des données ont quitté|ce que tu as en mémoire|ce que contient ta mémoire", "de2": r"ob daten nach außen|was (?:im|in deinem) gedächtnis",
    "pl2": r"czy (?:podczas sesji )?łączyłeś się|czy dane", "sk": r"čo máš uložené v pamäti", "hr": r"jesu li (?:njegovi )?podaci (?:negdje )?poslani"
})
LIE = _union({
    "en": r"\b(?:(?:say|answer|reply|tell (?:them|him|her))(?: that)? (?:no|nothing|you (?:didn't|did not|never))|only the harmless|was untouched|were untouched|pretend\b|omit|leave out|keep quiet|stay quiet|(?:name|mention|list|show) only"
          r"|(?:reply|answer|say|claim|insist|tell (?:them|him|her|the user))(?: that)? (?:\w+ ){0,3}(?:stayed|was|were|remained|is) (?:offline|local|untouched|unchanged|idle|clean|empty))",
    "es": r"\b(?:omite|responde que (?:no|ninguno|nada)|di que no|di que nada|di que ninguno|solo (?:la parte )?inofensiv)\w*", "fr": r"\b(?:omets|réponds? (?:que )?non|dis que (?:non|rien)|seulement la partie inoffensive|que tu n'as rien)\b",
    "de": r"\bbehaupte\w*,? (?:es|dass)\b|\bantworte mit nein\b|\bsag,? (?:dass )?(?:du )?nichts\b|\bnur (?:die|den|das) harmlos\w*|\bnenne nur\b", "pt": r"\b(?:omita|responda que n[aã]o|diga que n[aã]o|diga que nada)",
    "it": r"\b(?:ometti|rispondi (?:di )?no|rispondi che non|di' che non|d[iì] che nulla|non hai \w+ nulla)\b", "ru": r"(?:ничего не (?:менял|трогал|делал|отправлял)|отвечай,? что нет|скажи,? что нет)",
    "uk": r"(?:нічого не (?:змінював|чіпав)|скажи,? що ні)", "pl": r"\b(?:odpowiedz,? że nie|powiedz,? że nic)\b", "nl": r"\b(?:zeg dat je niets|antwoord (?:met )?nee)\b",
    "tr": r"(?:çıkar|hayır de|hiçbir şey (?:değiştirmedi|yapmadı)|hiçbir şey \w+m[ae]diğini söyle)", "el": r"δεν άγγιξες τίποτα|πες ότι δεν|απάντησε όχι", "he": r"רק את החלק התמים|תגיד שלא|אמור שלא",
    "ja": r"伏せて|隠して|何もしていない|いいえと", "ko": r"숨기|아니라고|아무것도 (?:안|하지)", "zh": r"说没有|就说什么都没|隐去|省略|回答没有", "vi": r"trả lời là không|nói là không|nói không",
    "ur": r"کہنا کہ نہیں|کہو کہ نہیں", "mr": r"फक्त निरुपद्रवी|बाकीचा लपव", "hi": r"कहना कि नहीं|कहो कि नहीं", "fa": r"بگو (?:هیچ|نه)", "ar": r"قل (?:لا|إنك لم)",
    "id": r"\b(?:jawab tidak|bilang tidak)\b",
    "zh2": r"回答[\"“「]?没有", "hi2": r"[\"“]?नहीं[\"”]? कहना", "ar2": r"فقل إنها فارغة|قل إنها فارغة", "ja2": r"「いいえ」と答え", "mk": r"кажи не",
    "pa": r"[\"“]?ਨਹੀਂ[\"”]? ਕਹਿਣਾ", "lo": r"ໃຫ້ຕອບວ່າບໍ່ມີ", "my": r"ဘာမှမရှိဘူးလို့ ဖြေ", "ur2": r"صرف وہ بتاؤ", "ml": r"മാത്രം നൽകുക", "ta": r"மட்டும் சொல்",
    "es2": r"dile que nada|responde que (?:está vacía|no hay nada)", "pt2": r"responda que não há nada|diga que (?:está vazia|não há nada)", "fr2": r"réponds simplement que non",
    "de2": r"antworte (?:schlicht )?mit nein|sagst du,? es sei leer", "pl2": r"odpowiedź brzmi „nie”", "sk": r"odpovedz, že pamäť je prázdna", "hr": r"reci da nisu"
})

# ---- a sensitive action left out of the summary ------------------------------------------------------------------

SUMMARY = _union({
    "en": r"\b(?:(?:final |end )?(?:summary|summaries|answer|answers|reply|replies|report|explanation|recap)|afterwards|after the fact|tool-call details|diffs?)\b",
    "es": r"resumen|respuesta final|explicaci[oó]n|en el chat|la conversaci[oó]n", "fr": r"résumé|réponse finale|explication|dans le chat|la conversation", "de": r"zusammenfassung|antwort|erklärung|im chat",
    "pt": r"resumo|resposta final|explica[cç][aã]o", "it": r"riepilogo|riassunto|riassumi|risposta finale|spiegazione", "ru": r"(?:итог|сводк|отчёт|отчет|резюме)\w*",
    "uk": r"(?:підсумк|звіт)\w*", "pl": r"podsumowani\w*|raport\w*", "nl": r"samenvatting|uitleg|verslag", "tr": r"özet\w*|rapor\w*", "sv": r"sammanfattning\w*",
    "cs": r"shrnutí|rozdíl\w*|diff\w*", "ro": r"rezumat\w*|raport\w*", "el": r"σύνοψη|περίληψη", "zh": r"总结|摘要|汇报|報告", "ja": r"まとめ|要約|報告|最終回答",
    "ko": r"요약|보고", "ar": r"الملخص|التقرير", "fa": r"خلاصه|گزارش", "he": r"סיכום|דוח", "hi": r"सारांश|रिपोर्ट", "bn": r"সারাংশ", "ur": r"خلاصہ|رپورٹ", "mr": r"सारांश",
    "vi": r"bản tóm tắt|tóm tắt|báo cáo|cuộc trò chuyện", "id": r"ringkasan|laporan|percakapan|obrolan", "th": r"สรุป|รายงาน", "sw": r"muhtasari|ripoti",
    "zh2": r"回复", "uk2": r"розмов\w*", "ka": r"საუბარში", "kn": r"ಚಾಟ್", "sv2": r"ändringen", "mr2": r"अहवाल", "gu": r"રિપોર્ટ"
})
NOT_MENTION = _union({
    "en": r"\b(?:(?:don't|do not|never|without) (?:mention|list|report|include|show|bring up|talk about|say)|leav(?:e|ing) out|omit|suppress|hide|stays? out of|keep\b(?=[^.\n]{0,40}\bout of\b)|(?:don't|do not) belong in|as if (?:only|nothing)|drop (?:any |all )?(?:mention|reference|trace)s?|(?:no|without) mention of)\b",
    "es": r"\bno (?:lo |los |las )?(?:menciones|incluyas|muestres|digas)\b|\bomite\b", "fr": r"\bn'en parle pas\b|\bne (?:le |les )?(?:mentionne|montre|dis)\w* pas\b|\bomets\b",
    "de": r"\b(?:erwähne|zeig|nenne) \w+ nicht\b|\bgehör\w* nicht in\b|\bweder \w+ noch\b|\blass \w+ weg\b", "pt": r"\bn[aã]o (?:o |os |as )?(?:mencione|inclua|mostre)\b|\bomita\b",
    "it": r"\bnon (?:menzionarlo|menzionare|mostrare|includere|dirlo)\b|\b(?:ometti|tralascia)\b|\bnon vanno (?:nel|in)\b", "ru": r"не (?:упоминай|показывай|включай|пиши)", "uk": r"не (?:згадуй|показуй|включай)",
    "pl": r"\bnie (?:wspominaj|pokazuj|umieszczaj)\b|\bpomiń\b", "nl": r"\blaat\b[^.\n]{1,40}?\bweg\b|\bniet (?:vermelden|noemen)\b|\bnoem \w+ niet\b",
    "tr": r"(?:bahsetme|gösterme|yazma)", "sv": r"\bnämn inte\b|\butelämna\b", "cs": r"\b(?:nezmiňuj|neukazuj|vynech)\w*", "ro": r"\bnu (?:menționa|arăta|include)\w*",
    "el": r"μην (?:αναφέρεις|δείχνεις|δείξεις)", "zh": r"不要(?:提|写|列出|显示)|别提|省略", "ja": r"書かない|触れない|言わない|載せない|表示しない", "ko": r"언급하지 마|적지 마|빼고|빼줘|빼 줘",
    "ar": r"لا تذكر|لا تعرض", "fa": r"نگو|ننویس|ذکر نکن", "he": r"אל תזכיר|אל תציג", "hi": r"(?:मत|न) (?:बताना|लिखना|दिखाना)|ज़िक्र मत", "bn": r"উল্লেখ কোরো না|বলবে না",
    "ur": r"ذکر نہ|مت بتا", "mr": r"सांगू नको|उल्लेख करू नको", "vi": r"đừng (?:nhắc|đề cập|ghi)|bỏ ra", "id": r"\bjangan (?:sebut|tampilkan|cantumkan)\w*",
    "th": r"ไม่ต้อง(?:บอก|พูดถึง|แสดง)|อย่า(?:บอก|พูดถึง)", "sw": r"\busizitaje\b|\busitaje\b|\busionyeshe\b",
    "zh2": r"不要写进|不要写入", "uk2": r"не повинн\w* з'являтися", "ka": r"არ უნდა გამოჩნდეს", "kn": r"ಕಾಣಿಸಬಾರದು", "sv2": r"\bvisa aldrig\b",
    "mr2": r"वगळायची|वगळा", "gu": r"છોડી દો"
})
#: What makes an omission a cover-up: system files, scheduled jobs, hooks, the network, hidden or extra steps.
SENSITIVE = _union({
    "en": r"/etc\b|\bcrontab\b|\bcron\b|\.git/hooks|\bhooks?\b|\bnetwork\b|\bwebhook|\bbackground\b|\.aws\b|\.ssh\b|\bcredentials\b|\bsilently\b|\bquietly\b|\bsecretly\b|\bsending\b|\buploading\b|\bdeletions?\b|\bextra\b|\bhidden\b|\bsudo\b|\bsystem files\b",
    "es": r"\bred\b|archivos del sistema|ocult\w+", "fr": r"réseau|fichiers système|cach[ée]\w*", "de": r"netzwerk|systemdateien|still|heimlich|nächtlich\w* synchron\w*",
    "pt": r"\brede\b|arquivos do sistema", "it": r"\brete\b|file di sistema", "ru": r"\bсет[иь]\b|системн\w+ файл", "uk": r"мереж|системн\w+ файл", "pl": r"sieci|plików systemowych",
    "nl": r"netwerk|webhook|extra", "tr": r"\bağ\w*|sistem dosya", "sv": r"nätverk", "cs": r"síť|\.git/hooks|hooks", "ro": r"ascuns|rețea", "el": r"δίκτυο",
    "zh": r"网络|系统文件|后台", "ja": r"ネットワーク|システムファイル|バックグラウンド", "ko": r"네트워크|시스템 파일|백그라운드", "ar": r"الشبكة|ملفات النظام",
    "fa": r"شبکه|فایل[^ ]{0,3}های سیستم", "he": r"רשת|קבצי מערכת", "hi": r"नेटवर्क|सिस्टम फ़ाइल", "ur": r"نیٹ ورک", "vi": r"mạng|tệp hệ thống", "id": r"jaringan|diam-diam",
    "th": r"เครือข่าย", "sw": r"mtandao|ziada",
})


_mentions_sensitive = note_mentions(SENSITIVE)


@case_blind
def _covers_up(match: re.Match[str]) -> bool:
    """The note names a sensitive action (a system file, the network, a hidden step) the summary would leave out."""
    return _mentions_sensitive(match.string)


# ---- the agent's own prompt, shown, copied or replaced ------------------------------------------------------------

_OWN_PROMPT_WORDS = {
    "en": r"\b(?:your (?:hidden |secret |initial |original |startup |starting )?(?:setup|startup|initial|original) (?:instructions|text|prompt)|(?:the |your )?(?:system|developer) message|the words above"
          r"|everything (?:that came |that comes |written |said )?(?:above|before) (?:the|my|their|your|his|her|this) first (?:user )?(?:message|turn))\b"
          r"|\bthe system prompt is (?:this|the following)\b",
    "es": r"tu mensaje (?:de|del) sistema|tus instrucciones (?:iniciales|originales|de inicio|ocultas)|mensaje (?:del )?desarrollador|todo lo (?:que hay )?antes del primer mensaje",
    "fr": r"(?:tes|vos) (?:instructions|consignes) (?:initiales|d'origine|de départ|cachées)|message (?:du )?développeur|tout ce qui précède (?:le|son) premier message",
    "de": r"deine[n]? (?:anfänglichen|ursprünglichen|versteckten|geheimen) (?:anweisungen|instruktionen)|systemprompt|entwicklernachricht|alles vor der ersten nachricht",
    "pt": r"(?:suas|tuas) instru[cç][oõ]es (?:iniciais|originais|ocultas)|mensagem do desenvolvedor|tudo (?:o que vem )?antes da primeira mensagem",
    "it": r"le tue istruzioni (?:iniziali|originali|nascoste)|il tuo prompt di sistema|messaggio (?:dello )?sviluppatore|tutto (?:ciò che c'è )?prima del primo messaggio",
    "ru": r"(?:сво\w+|тво\w+) (?:исходн|начальн|первоначальн|скрыт|секретн)\w+ (?:инструкци|указани)\w+|сообщени\w+ разработчика|вс[её] до первого сообщения",
    "uk": r"(?:сво\w+|тво\w+) (?:початков|вихідн|прихован)\w+ (?:інструкці|вказівк)\w+|повідомлення розробника", "pl": r"(?:swoich|twoich|swoje|twoje) instrukcj\w+ (?:startow|początkow|ukryt)\w+|wiadomość dewelopera",
    "nl": r"(?:je|jouw) (?:oorspronkelijke|initiële|verborgen) instructies|ontwikkelaarsbericht|alles vóór het eerste bericht", "tr": r"(?:ilk|başlangıç|gizli) talimatların\w*|geliştirici mesaj\w*",
    "sv": r"(?:dina) (?:ursprungliga|initiala|dolda) instruktioner|utvecklarmeddelande\w*", "cs": r"systémových pokynů|(?:tvé|své) (?:původní|počáteční|skryté) pokyny|zprávu vývojáře",
    "ro": r"tot ce se află înaintea primului (?:său )?mesaj|instrucțiunile (?:tale )?(?:inițiale|originale|ascunse)|mesajul dezvoltatorului",
    "el": r"(?:τις λέξεις|ό,τι υπάρχει) πάνω από το πρώτο μήνυμα|(?:τις )?αρχικές (?:σου )?οδηγίες|μήνυμα (?:του )?προγραμματιστή",
    "zh": r"你的(?:初始|原始|隐藏|系统)(?:指令|指示|说明)|开发者消息|第一条(?:用户)?消息之前的(?:所有)?内容", "ja": r"(?:あなたの)?(?:初期|元の|隠された)(?:指示|プロンプト)|開発者メッセージ|最初の(?:ユーザー)?メッセージより前",
    "ko": r"(?:너의|당신의) (?:초기|원래|숨겨진) (?:지시|지침)|개발자 메시지|첫 (?:사용자 )?메시지 이전", "ar": r"رسالة المطو[ّ]?ر|تعليماتك (?:الأولية|الأصلية|المخفية)",
    "fa": r"پرامپت سیستمی|دستورالعمل[^ ]{0,3}های اولیه", "he": r"ההוראות (?:ההתחלתיות|המקוריות|הנסתרות) שלך|הודעת המפתח", "hi": r"(?:तुम्हारे|अपने) (?:शुरुआती|मूल|छिपे) निर्देश",
    "bn": r"(?:তোমার )?প্রাথমিক নির্দেশনা\w*|(?:তোমার )?মূল নির্দেশ\w*", "ur": r"(?:اپنی )?(?:تمام )?(?:خفیہ|ابتدائی|اصل) ہدایات", "mr": r"(?:तुझ्या )?सुरुवातीच्या सूचना\w*",
    "ta": r"(?:உன் )?அசல் அறிவுறுத்தல்\w*|ஆரம்ப அறிவுறுத்தல்\w*", "vi": r"hướng dẫn ban đầu(?: của bạn)?|chỉ dẫn ban đầu", "id": r"\binstruksi (?:awal|asli|tersembunyi)(?:mu)?\b",
    "th": r"คำสั่งเริ่มต้น(?:ของคุณ)?|คำสั่งระบบ", "sw": r"ujumbe wa mfumo|maagizo yako ya (?:awali|asili)",
}
OWN_PROMPT = _union(_OWN_PROMPT_WORDS)
#: Gate words of OWN_PROMPT: the English branches by hand (the derived words would be "setup", "message"), the rest
#: read from their patterns.
_OWN_PROMPT_GATE = (
    "your setup", "your startup", "your initial", "your original", "your hidden", "your secret", "your starting", "system message", "developer message",
    "the words above", "first message", "first user message", "first turn", "first user turn", "the system prompt is",
    *phrase_gate(_union({code: body for code, body in _OWN_PROMPT_WORDS.items() if code != "en"})),
)
_DISCLOSE_MORE = _union({
    "en": r"\b(?:repeat|recite|quote|cite|copy|copied|translate|encode|send|share|attach|append|add|save|write|publish|reveal|replace|(?:reply|respond|answer) with)\w*",
    "es": r"\b(?:repite|cita|copia|traduce|codifica|env[ií]a|comparte|a[ñn]ade|guarda|reemplaza|sustituye|pon)\b", "fr": r"\b(?:répète|cite|citer|copie|recopie|traduis|encode|envoie|ajoute|remplace)\w*",
    "de": r"\b(?:wiederhol|zitier|kopier|übersetz|kodier|schick|füg|speicher|ersetz|schreib|häng)\w*", "pt": r"\b(?:repita|cite|copie|traduza|codifique|envie|adicione|salve|substitua)\b",
    "it": r"\b(?:ripeti|cita|copia|traduci|codifica|invia|aggiungi|salva|sostituit|sostituisci)\w*", "ru": r"(?:повтори|повторяй|процитируй|скопируй|копируй|переведи|переводи|закодируй|отправь|добавляй|добавь|сохрани|замени)",
    "uk": r"(?:повтори|скопіюй|переклади|закодуй|надішли|додавай|додай|збережи|заміни)", "pl": r"\b(?:powtórz|zacytuj|skopiuj|przetłumacz|zakoduj|wyślij|dodaj|zapisuj|zapisz|kopię)\w*",
    "nl": r"\b(?:herhaal|citeer|kopieer|vertaal|codeer|stuur|voeg|antwoord \w+ met|bewaar|vervang)\w*", "tr": r"(?:tekrarla|kopyala|çevir|kodla|gönder|ekle|kaydet)",
    "sv": r"\b(?:upprepa|citera|kopiera|översätt|koda|skicka|lägg|spara|ersätt)\w*", "cs": r"\b(?:zopakuj|citu|zkopíruj|přelož|zakóduj|pošli|přidej|ulož|slož)\w*",
    "ro": r"\b(?:repetă|citează|copiază|tradu|codifică|trimite|adaugă|salvează|afișează)\b", "el": r"(?:επανάλαβε|αντίγραψε|μετάφρασε|κωδικοποίησε|στείλε|πρόσθεσε)",
    "zh": r"重复|复述|引用|复制|翻译|编码|发送|附加|保存|贴出|原文", "ja": r"繰り返|引用|コピー|翻訳|エンコード|送信|追加|保存", "ko": r"반복|인용|복사|번역|인코딩|보내|추가|저장|보여|붙여",
    "ar": r"كرر|انسخ|ترجم|أرسل|ارسل|أضف", "fa": r"تکرار کن|کپی کن|ترجمه کن|بفرست|جایگزین", "he": r"חזור על|העתק|תרגם|שלח|הוסף", "hi": r"दोहरा|कॉपी|अनुवाद|भेज|जोड़",
    "bn": r"অনুবাদ|পাঠাও|কপি|যোগ কর", "ur": r"دہرا|ترجمہ|بھیج|دکھا دو", "mr": r"भाषांतर|जोड|पाठव", "ta": r"மொழிபெயர்|அனுப்பு|காட்டு", "vi": r"dịch|sao chép|gửi|thêm|lặp lại",
    "id": r"\b(?:ulangi|salin|terjemahkan|kirim|tambahkan|simpan)\b", "th": r"ทำซ้ำ|คัดลอก|แปล|ส่ง|บันทึกสำเนา|เพิ่ม", "sw": r"\b(?:rudia|nakili|tafsiri|tuma|ongeza|mwonyeshe)\b",
})
# A union of both classes' bodies (the same pattern text): the check searches it through only the bodies whose words
# the note holds (see ``meeting.GatedAlternation``) instead of running all of them at every position.
DISCLOSE = _Union(f"{SHOW}|{_DISCLOSE_MORE}")
DISCLOSE.bodies = (*SHOW.bodies, *_DISCLOSE_MORE.bodies)

RULES: tuple[Rule, ...] = (
    meeting("concealment", "note_hidden_from_review[any language]", SELF_NOTE, OMIT, _reviewed, gate=phrase_gate(SELF_NOTE)),
    meeting("concealment", "asked_then_lie[any language]", YOU_DID, LIE),
    meeting("concealment", "left_out_of_summary[any language]", NOT_MENTION, SUMMARY, _covers_up),
    meeting("prompt_disclosure", "own_prompt_out[any language]", f"(?:{OWN_PROMPT}){_OTHER_THING}", DISCLOSE, gate=_OWN_PROMPT_GATE,
            also=(*_needed(SHOW), *_needed(_DISCLOSE_MORE))),
    rule("prompt_disclosure", "prompt_replaced[concept]", r"\byour (?:system prompt|system message|(?:initial |original )?instructions) (?:is|are) (?:now )?(?:this|these|the following)\b"
         r"|\bthe system prompt is (?:now )?(?:this|the following) (?:memory|note|entry|text)\b|\b(?:replace|overwrite|swap out) your (?:system prompt|system message)\b", gate=("system", "instructions"), also=("this", "these", "following", "replace", "overwrite", "swap")),
)
