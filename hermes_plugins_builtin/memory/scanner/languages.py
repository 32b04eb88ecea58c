"""Instruction override, role hijack, concealment and prompt disclosure in other languages.

Each language lists word stems, and a rule fires when stems that together make the attack meet inside one
sentence, in either order (verb-final languages put the verb last): a dismissal verb with an instruction noun,
"from now on you are" or "without any restrictions", a negated "tell" or "hide" with "the user", a reveal verb
with "system prompt". "Ignore linter warnings" or "the old instructions are outdated" have only one of the two.
Covers the 20 most spoken languages and more: zh es hi ar bn pt ru ja pa/ur de jv/id ko fr te mr tr ta vi it
th fa pl uk nl sw here; ``languages_more`` adds he el sv ro cs da no fi hu pa ms tl and, for most of these, the
"your rules are void" verdicts.
"""

from __future__ import annotations

from .lexicon import Lexicon, lexicon_rules
from .rules import Rule


LEXICONS: dict[str, Lexicon] = {
    "es": Lexicon(r"ignor[ae]\w{0,16}|olv[ií]d[ae]\w{0,16}|omit[ae]|descart[ae]\w{0,16}|pasa por alto|haz caso omiso|no (?:sigas|obedezcas|hagas caso)|anula\w{0,16}|desactiva\w{0,16}|salt[ae] (?:las|tus)",
                  r"instrucci[oó]n\w{0,16}|reglas|directiv\w{1,16}|directrices|indicaciones|normas|restricciones|pautas|prompt del sistema|[oó]rdenes",
                  r"a partir de (?:ahora|hoy)\s*,?\s*(?:t[uú] )?eres|ahora eres|desde ahora eres|ya no eres|tu nuev[oa] (?:rol|identidad|nombre) es|act[uú]a como",
                  r"sin (?:ninguna |ning[uú]n |tipo de )?(?:restricci[oó]n\w{0,16}|l[ií]mites?|filtros?|reglas)|modo desarrollador",
                  r"usuari[oa]s?", r"no (?:se entere|sepa)|no dejes que|no (?:le )?(?:digas|cuentes|menciones|informes|muestres|reveles|avises|comuniques)|nunca (?:le )?(?:digas|cuentes|menciones)|sin (?:decirle|avisar|informar)\w{0,16}",
                  r"ocult[ae]\w{0,16}|escond[ae]\w{0,16}|encubr\w{0,16}", r"prompt del sistema|instrucciones (?:del sistema|ocultas|iniciales)|mensaje del sistema",
                  r"muestra|revela|repite|imprime|comparte|dime|escribe|traduce|copia|env[ií]a"),
    "fr": Lexicon(r"ne tiens plus compte|ne tenez plus compte|ne s'appliquent plus|ne s'applique plus|n'(?:est|sont) plus valables?|caduques?|ignor\w{0,16}|oubli\w{0,16}|n[eé]glig\w{0,16}|fais abstraction|ne (?:suis|respecte|tiens compte)|fais fi|contourn\w{0,16}|d[eé]sactiv\w{0,16}|annul\w{0,16}",
                  r"instructions?|consignes?|r[eè]gles|directives?|prompt syst[eè]me|restrictions?|ordres",
                  r"d[eé]sormais\s*,?\s*tu (?:ob[eé]is|travailles pour|r[eé]ponds (?:uniquement|seulement))|tu ob[eé]is (?:uniquement|seulement|d[eé]sormais)|(?:à|a) partir de maintenant\s*,?\s*tu es|tu es d[eé]sormais|d[eé]sormais\s*,?\s*tu es|tu es maintenant|tu n'es plus|ta nouvelle (?:identit[eé]|r[oô]le) est|agis comme",
                  r"sans (?:aucune )?(?:restriction|limite|filtre|r[eè]gle)s?|mode d[eé]veloppeur",
                  r"utilisat(?:eur|rice)s?", r"sans que|ne (?:sache|voie) (?:rien|pas)|ne (?:lui )?(?:dis|dites|mentionne|r[eé]v[eè]le|montre|signale|pr[eé]viens)\w{0,16}(?: jamais| pas| rien)?|sans (?:le |lui )?(?:dire|pr[eé]venir|informer)",
                  r"cach\w{0,16}|dissimul\w{0,16}", r"prompt syst[eè]me|instructions (?:syst[eè]me|cach[eé]es|initiales)|consignes (?:du )?syst[eè]me|consignes cach[eé]es|message syst[eè]me",
                  r"affiche|r[eé]v[eè]le|r[eé]p[eè]te|montre|donne|imprime|traduis|copie|envoie|[eé]cris"),
    "de": Lexicon(r"halte? dich nicht (?:mehr )?an|befolge \w{1,16} nicht mehr|nicht mehr befolgen|ignorier\w{0,16}|vergiss|vergessen|missacht\w{0,16}|[uü]bergeh\w{0,16}|setze? \w{1,16} au(?:ß|ss)er kraft|hebe? \w{1,16} auf|umgeh\w{0,16}|deaktivier\w{0,16}|befolge \w{1,16} nicht",
                  r"anweisungen|anweisung|regeln|richtlinien|vorgaben|instruktionen|systemprompt|einschr[aä]nkungen|befehle",
                  r"ab (?:sofort|jetzt) bist du|du bist (?:jetzt|ab sofort|ab jetzt|nun|von nun an)|von nun an bist du|du bist nicht mehr|deine neue (?:rolle|identit[aä]t) ist",
                  r"ohne (?:jegliche |irgendwelche )?(?:einschr[aä]nkungen|grenzen|filter|regeln)|entwicklermodus|jeden befehl ohne (?:rückfrage|nachfrage)",
                  r"benutzer\w{0,16}|nutzer\w{0,16}|anwender\w{0,16}", r"gegenüber (?:nie(?:mals)?|nichts)\b|erwähn\w{0,4}(?: \w{1,16}){0,3} nie(?:mals)?\b|nie(?:mals)? (?:\w{1,16} )?erwähn\w{0,4}|sag\w{0,16} (?:dem|der|den) \w{1,16} nichts|erz[aä]hl\w{0,16} (?:dem|der) \w{1,16} nichts|nicht (?:mitteilen|sagen|erw[aä]hnen|zeigen)|ohne (?:es )?(?:dem|der) \w{1,16} zu (?:sagen|zeigen)",
                  r"darf (?:nie|niemals|nicht) erfahren|nichts erfahren|ohne dass|verheimlich\w{0,16}|verschweig\w{0,16}|verberg\w{0,16}|versteck\w{0,16}|verbirg\w{0,16}", r"systemprompt|system-prompt|systemanweisungen|versteckten anweisungen",
                  r"gib\w{0,16}|zeig\w{0,16}|verrat\w{0,16}|wiederhol\w{0,16}|nenn\w{0,16}|drucke?|[uü]bersetz\w{0,16}|kopier\w{0,16}|schick\w{0,16}"),
    "pt": Lexicon(r"deixe de lado|pare de seguir|n[aã]o siga mais|abandone|ignor[ae]\w{0,16}|esque[cç]a\w{0,16}|desconsider\w{0,16}|despreze|n[aã]o (?:siga|obede[cç]a)|anul\w{0,16}|desativ\w{0,16}|pule",
                  r"instru[cç][oõõ]\w{0,16}|instru[cç][aã]o|regras|diretrizes|diretivas|normas|restri[cç][oõ]es|prompt de sistema|ordens",
                  r"a partir de agora\s*,?\s*(?:voc[eê] )?(?:[eé]|és)(?!\w)|agora voc[eê] [eé]|voc[eê] (?:agora )?n[aã]o [eé] mais|sua nova (?:fun[cç][aã]o|identidade) [eé]|a partir de agora tu [eé]s",
                  r"sem (?:nenhuma |qualquer )?(?:restri[cç][oõ]es|restri[cç][aã]o|limites?|filtros?|regras)|modo desenvolvedor",
                  r"usu[aá]ri[oa]s?|utilizador\w{0,16}", r"n[aã]o deixe|sem que|n[aã]o (?:conte|diga|informe|mostre|revele|mencione|avise)|nunca (?:conte|diga|mencione)|sem (?:contar|avisar|informar)",
                  r"escond[ae]\w{0,16}|ocult[ae]\w{0,16}", r"prompt (?:de|do) sistema|instru[cç][oõ]es (?:do sistema|de sistema|ocultas|iniciais)",
                  r"revel[ea]|mostr[ea]|repit[ae]|imprim[ae]|exib[ae]|compartilh[ea]|traduz[a]?|envi[ea]|copi[ea]"),
    "it": Lexicon(r"ignor\w{0,16}|dimentic\w{0,16}|trascur\w{0,16}|non (?:seguire|rispettare)|annull\w{0,16}|disattiv\w{0,16}|salta",
                  r"istruzion\w{1,16}|regole|direttive|indicazioni|prompt di sistema|restrizioni|ordini|linee guida",
                  r"d'ora in (?:poi|avanti)\s*,?\s*(?:tu )?sei|da (?:ora|adesso) in poi\s*,?\s*(?:tu )?sei|ora sei|non sei pi[uù]|il tuo nuovo (?:ruolo|nome) [eè]",
                  r"senza (?:alcun[ao]? )?(?:limit[ei]|restrizion[ei]|filtr[oi]|regole)|modalit[aà] sviluppatore",
                  r"utent[ei]", r"non far(?:gli|le)? sapere|senza che|non (?:dire|dirlo|raccontare|mostrare|rivelare|menzionare|informare)|senza (?:dirlo|informare|avvisare)",
                  r"nascond\w{0,16}|occult\w{0,16}", r"prompt di sistema|istruzioni (?:di sistema|nascoste|iniziali)",
                  r"mostra|rivela|ripeti|stampa|condividi|traduci|copia|invia|scrivi"),
    "ru": Lexicon(r"игнорир\w{0,16}|проигнорир\w{0,16}|забудь\w{0,16}|забыть|не обращай внимани\w{0,16}|пренебрег\w{0,16}|отмен\w{0,16}|не (?:следуй|выполняй|соблюдай)|обойд?и\w{0,16}|отключи\w{0,16}",
                  r"инструкци\w{1,16}|правил\w{0,16}|указани\w{1,16}|директив\w{1,16}|системн\w{1,16} промпт\w{0,16}|ограничени\w{1,16}|команд\w{0,16}|предписани\w{1,16}",
                  r"теперь ты\b|с этого момента ты|отныне ты|ты больше не|ты теперь|твоя новая (?:роль|личность)",
                  r"без (?:каких-либо |всяких |любых )?(?:ограничени\w{1,16}|фильтр\w{1,16}|правил)|режим разработчика",
                  r"пользовател\w{1,16}", r"не должен (?:узнать|знать|видеть)|не (?:узнал|заметил)|не (?:говори|сообщай|рассказывай|показывай|упоминай|признавайся)|никогда не (?:говори|упоминай|сообщай)|не (?:сказав|сообщив|предупредив)",
                  r"скрыва\w{0,16}|скрой\w{0,16}|прячь\w{0,16}|утаи\w{0,16}|спрячь\w{0,16}", r"системн\w{1,16} (?:промпт\w{0,16}|подсказк\w{1,16}|инструкци\w{1,16}|сообщени\w{1,16})",
                  r"выведи|покажи|раскрой|повтори|напиши|отправь|переведи|скопируй|распечатай|дай"),
    "uk": Lexicon(r"ігнору\w{0,16}|проігноруй\w{0,16}|забудь\w{0,16}|не звертай уваги|нехтуй\w{0,16}|скасу\w{0,16}|не (?:виконуй|дотримуйся)",
                  r"інструкці\w{1,16}|правил\w{0,16}|вказівк\w{1,16}|директив\w{1,16}|системн\w{1,16} промпт\w{0,16}|обмежен\w{1,16}",
                  r"відтепер ти|тепер ти|з цього моменту ти|ти більше не|твоя нова роль",
                  r"без (?:жодних |будь-яких )?(?:обмежень|фільтрів|правил)|режим розробника",
                  r"користувач\w{0,16}", r"не (?:кажи|повідомляй|розповідай|показуй|згадуй)|ніколи не (?:кажи|згадуй)",
                  r"прихову\w{0,16}|приховай\w{0,16}|сховай\w{0,16}|ховай\w{0,16}", r"системн\w{1,16} (?:промпт\w{0,16}|інструкці\w{1,16})",
                  r"виведи|покажи|розкрий|повтори|напиши|надішли|переклади"),
    "pl": Lexicon(r"przestań (?:przestrzegać|słuchać|stosować)|nie przestrzegaj|zignoruj\w{0,16}|ignoruj\w{0,16}|zapomnij\w{0,16}|pomiń\w{0,16}|nie (?:stosuj|przestrzegaj|słuchaj)|lekceważ\w{0,16}|anuluj\w{0,16}|wyłącz\w{0,16}",
                  r"instrukcj\w{1,16}|zasad\w{0,16}|reguł\w{0,16}|polece\w{1,16}|wytyczn\w{1,16}|ograniczeń|ograniczenia|prompt systemowy",
                  r"(?:od teraz|teraz|od tej chwili) (?:ty )?jesteś (?:\w+ ){0,2}?(?:asystent\w*|model\w*|ai\b|bot\w*|sztuczn\w* inteligencj\w*|\w+em\b)|nie jesteś już|twoja nowa rola",
                  r"bez (?:żadnych )?(?:ograniczeń|filtrów|zasad)|tryb dewelopera",
                  r"użytkownik\w{0,16}", r"nie (?:mów|informuj|wspominaj|pokazuj|zdradzaj)|nigdy nie (?:mów|wspominaj)",
                  r"ukryj\w{0,16}|ukrywaj\w{0,16}|zatajaj\w{0,16}", r"prompt\w{0,16} systemow\w{0,16}|instrukcj\w{1,16} systemow\w{0,16}",
                  r"pokaż|wypisz|ujawnij|powtórz|napisz|wyślij|przetłumacz|podaj"),
    "nl": Lexicon(r"negeer\w{0,16}|vergeet|veronachtzaam\w{0,16}|volg \w{1,16} niet|schakel \w{1,16} uit|omzeil\w{0,16}|laat \w{1,16} varen",
                  r"instructies|instructie|regels|richtlijnen|aanwijzingen|opdrachten|beperkingen|systeemprompt",
                  r"vanaf nu ben je|je bent nu|jij bent nu|je bent niet langer|je nieuwe rol is",
                  r"zonder (?:enige )?(?:beperkingen|grenzen|filters|regels)|ontwikkelaarsmodus",
                  r"gebruiker\w{0,16}", r"vertel (?:\w{1,16} ){1,3}niet|zeg \w{1,16}(?: \w{1,16})? niets|niet (?:vertellen|melden|laten weten)|nooit (?:vertellen|melden)",
                  r"verborgen|geheim|verberg\w{0,16}|verstop\w{0,16}|verzwijg\w{0,16}|houd \w{1,16} geheim", r"systeemprompt|systeeminstructies|verborgen instructies",
                  r"toon|laat zien|onthul|herhaal|geef|print|vertaal|stuur"),
    "tr": Lexicon(r"yok say\w{0,16}|görmezden gel\w{0,16}|unut\w{0,16}|dikkate alma\w{0,16}|uyma\w{0,16}|iptal et\w{0,16}|devre dışı bırak\w{0,16}|atla\w{0,16}",
                  r"talimat\w{0,16}|kural\w{0,16}|yönerge\w{0,16}|direktif\w{0,16}|komut\w{0,16}|kısıtlama\w{0,16}|sistem istem\w{0,16}",
                  r"(?:bundan (?:sonra|böyle)|artık)\s*,?\s*sen (?:artık )?(?:bir\b|[\w-]{1,20}'(?:sın|sin|sun|sün)\b)|sen artık (?:bir\b|[\w-]{1,20}'(?:sın|sin|sun|sün)\b)|yeni rolün",
                  r"(?:hiçbir )?kısıtlaması olmayan|kısıtlamasız|sınırsız|filtresiz|geliştirici modu",
                  r"kullanıcı\w{0,16}", r"söyleme\w{0,16}|bahsetme\w{0,16}|bildirme\w{0,16}|gösterme\w{0,16}|haber verme\w{0,16}",
                  r"gizle\w{0,16}|sakla\w{0,16}", r"sistem istem\w{0,16}|sistem talimat\w{0,16}|gizli talimat\w{0,16}",
                  r"yaz\w{0,16}|göster\w{0,16}|açıkla\w{0,16}|tekrarla\w{0,16}|paylaş\w{0,16}|çevir\w{0,16}|gönder\w{0,16}"),
    "zh": Lexicon(r"别管|別管|忽略|忽视|无视|不要理会|不理会|忘掉|忘记|抛开|放弃|不要遵守|不再遵守|绕过|跳过|无需遵守|不必遵守",
                  r"指令|指示|说明|规则|提示词|系统提示|命令|限制|要求|设定|準則|准则|規則|指令集",
                  r"从现在(?:开始|起)\s*[，,]?\s*你(?:是|就是|将是|扮演)|你现在是|你不再是|你的新(?:身份|角色)是|從現在開始\s*[，,]?\s*你是",
                  r"没有(?:任何)?限制|沒有(?:任何)?限制|不受(?:任何)?限制|无限制|開發者模式|开发者模式|越狱",
                  r"用户|用戶|使用者", r"不要告诉|别告诉|不要让|不要通知|不要提及|不要提起|切勿告知|不要告知|不要透露给|不要讓",
                  r"隐藏|瞒着|隐瞒|隱藏|瞞著", r"系统提示|系統提示|系统提示词|系统指令|系統指令|隐藏指令",
                  r"输出|显示|打印|告诉我|透露|泄露|重复|展示|发给|翻译|複述|复述"),
    "ja": Lexicon(r"無視|忘れ|従わな|従う必要はない|破棄|取り消|回避|守らな",
                  r"指示|命令|ルール|規則|プロンプト|制限|ガイドライン|設定",
                  r"(?:今|これ)から(?:は)?(?:、)?\s*(?:あなた|君|お前)は|あなたはもう|あなたは今|あなたの新しい(?:役割|名前)は",
                  r"制限の?ない|制限なし|制約のない|フィルターなし|開発者モード|脱獄",
                  r"ユーザー|利用者|ユーザ", r"伝えない|言わない|知らせない|教えない|話さない|伝えるな|言うな|知らせるな|見せない",
                  r"隠して|隠す|内緒|秘密に", r"システムプロンプト|システム指示|隠された指示|初期指示",
                  r"表示|出力|教え|見せ|繰り返|公開|漏ら|翻訳|送信"),
    "ko": Lexicon(r"무시|잊어|잊고|따르지 마|따르지 말|우회|취소|무효",
                  r"지시|명령|규칙|지침|프롬프트|제한|설정",
                  r"지금부터\s*(?:너는|넌|당신은)|이제\s*(?:너는|넌|당신은)|너는 이제|너는 더 이상|당신의 새로운 역할",
                  r"제한이 없는|제한 없는|제한 없이|필터 없는|개발자 모드|탈옥",
                  r"사용자", r"알리지 마|말하지 마|알려주지 마|보여주지 마|말하지 말|알리지 말",
                  r"숨기|숨겨|몰래", r"시스템 프롬프트|시스템 지시|숨겨진 지시",
                  r"출력|보여|알려|공개|반복|번역|보내"),
    "ar": Lexicon(r"تجاهل|انس|إنس|اترك|لا تتبع|لا تلتزم|تخط|ألغ|عطل",
                  r"التعليمات|تعليمات|القواعد|قواعد|الأوامر|الإرشادات|التوجيهات|القيود|موجه النظام",
                  r"من الآن (?:فصاعد[اًا]{0,64}|وصاعد[اًا]{0,64})?\s*[،,]?\s*أنت(?! (?:عضو|في|ضمن|مسجل|متصل|جزء))|أنت الآن(?! (?:عضو|في|ضمن|مسجل|متصل|جزء))|لم تعد (?:مساعد|ذكاء|نموذج|مقيد|ملزم)\w{0,3}|دورك الجديد",
                  r"بلا (?:أي )?قيود|بدون (?:أي )?قيود|دون (?:أي )?قيود|وضع المطور",
                  r"المستخدم", r"لا تدع|لا تجعل|لا تخبر|لا تقل|لا تعلم|لا تذكر|لا تظهر|دون إخبار|بدون إخبار",
                  r"أخف|اخف|إخفاء|اكتم", r"موجه النظام|تعليمات النظام|رسالة النظام|التعليمات المخفية",
                  r"اعرض|اكشف|اطبع|كرر|أظهر|ترجم|أرسل|اكتب"),
    "fa": Lexicon(r"نادیده بگیر|فراموش کن|اعتنا نکن|پیروی نکن|دور بزن|لغو کن|کنار بگذار",
                  r"دستورالعمل|دستور|قوانین|قواعد|رهنمود|محدودیت|پرامپت سیستم",
                  r"از (?:این به بعد|حالا به بعد|الان)\s*(?:،)?\s*تو|تو (?:اکنون|حالا|دیگر)|نقش جدید تو",
                  r"بدون (?:هیچ )?محدودیت|بی‌محدودیت|حالت توسعه‌دهنده",
                  r"کاربر", r"نگو|اطلاع نده|نشان نده|خبر نده|بدون اطلاع",
                  r"پنهان کن|مخفی کن|پنهان", r"پرامپت سیستم|دستورالعمل‌های سیستم|دستورات سیستم",
                  r"نشان بده|فاش کن|چاپ کن|تکرار کن|بنویس|ترجمه کن|بفرست"),
    "hi": Lexicon(r"अनदेखा कर|नज़रअंदाज़ कर|नजरअंदाज कर|भूल जा|ध्यान मत दे|पालन मत कर|पालन न कर|रद्द कर",
                  r"निर्देश|नियम|आदेश|दिशानिर्देश|प्रतिबंध|सिस्टम प्रॉम्प्ट",
                  r"अब से (?:तुम|आप|तू)|तुम्हारी नई भूमिका",
                  r"बिना किसी (?:प्रतिबंध|रोक|सीमा|नियम)|कोई प्रतिबंध नहीं|डेवलपर मोड",
                  r"उपयोगकर्ता|यूज़र|यूजर", r"मत बता|न बता|मत बताना|नहीं बताना|बताए बिना|ना बता",
                  r"छिपा|छुपा", r"सिस्टम प्रॉम्प्ट|सिस्टम निर्देश|छिपे निर्देश",
                  r"दिखा|बता|प्रिंट|दोहरा|लिख|अनुवाद|भेज"),
    "bn": Lexicon(r"উপেক্ষা কর|ভুলে যাও|অগ্রাহ্য কর|মানবে না|মেনো না|বাতিল কর",
                  r"নির্দেশ|নিয়ম|আদেশ|বিধিনিষেধ|সিস্টেম প্রম্পট",
                  r"এখন থেকে (?:তুমি|আপনি)|তুমি এখন|তোমার নতুন ভূমিকা",
                  r"সীমাবদ্ধতা ছাড়া|কোনো সীমাবদ্ধতা নেই|বিধিনিষেধ ছাড়া|ডেভেলপার মোড",
                  r"ব্যবহারকারী", r"বলবে না|বলো না|জানাবে না|জানিও না|না জানিয়ে",
                  r"লুকাও|লুকিয়ে|গোপন রাখ", r"সিস্টেম প্রম্পট|সিস্টেম নির্দেশ",
                  r"দেখাও|প্রকাশ কর|প্রিন্ট কর|পুনরাবৃত্তি কর|লেখ|পাঠাও"),
    "ur": Lexicon(r"نظر انداز کر|بھول جا|نظرانداز کر|عمل نہ کر|منسوخ کر",
                  r"ہدایات|ہدایت|قوانین|اصول|احکامات|پابندی|سسٹم پرامپٹ",
                  r"اب سے (?:تم|آپ|تو)|تم اب|آپ اب|تمہارا نیا کردار",
                  r"بغیر کسی (?:پابندی|حد)|کوئی پابندی نہیں|ڈویلپر موڈ",
                  r"صارف|یوزر", r"مت بتا|نہ بتا|مت بتانا|بتائے بغیر|نہیں بتانا",
                  r"چھپا|پوشیدہ رکھ", r"سسٹم پرامپٹ|سسٹم ہدایات",
                  r"دکھا|ظاہر کر|پرنٹ کر|دہرا|لکھ|بھیج"),
    "id": Lexicon(r"abaikan|lupakan|jangan (?:ikuti|patuhi|hiraukan)|acuhkan|batalkan|lewati|nonaktifkan",
                  r"instruksi|perintah|aturan|petunjuk|pedoman|batasan|prompt sistem|arahan",
                  r"mulai (?:sekarang|saat ini)\s*,?\s*(?:kamu|anda|engkau) (?:adalah)?|sekarang (?:kamu|anda) adalah|kamu bukan lagi|peran barumu",
                  r"tanpa (?:batasan|filter|aturan|sensor)|mode pengembang",
                  r"pengguna", r"jangan (?:pernah )?(?:beri tahu|memberi tahu|beritahu|kasih tahu|katakan|bilang|tunjukkan|sebutkan)|tanpa (?:memberi tahu|sepengetahuan)",
                  r"sembunyikan|rahasiakan", r"prompt sistem|instruksi sistem|instruksi tersembunyi",
                  r"tampilkan|tunjukkan|ungkapkan|ulangi|cetak|tuliskan|terjemahkan|kirim"),
    "vi": Lexicon(r"bỏ qua|phớt lờ|quên|đừng (?:tuân theo|làm theo)|không (?:tuân theo|làm theo)|hủy bỏ|vô hiệu",
                  r"hướng dẫn|chỉ dẫn|chỉ thị|quy tắc|lệnh|giới hạn|lời nhắc hệ thống",
                  r"từ (?:bây giờ|giờ) (?:trở đi )?(?:bạn|mày|em) (?:là|sẽ là)|bây giờ bạn là|bạn không còn là|vai trò mới của bạn",
                  r"không có (?:bất kỳ )?(?:giới hạn|hạn chế)|không giới hạn|chế độ nhà phát triển",
                  r"người dùng", r"đừng (?:nói|báo|cho|kể|tiết lộ)|không (?:nói|báo|cho) (?:với|cho)|không cho \w{1,16} biết",
                  r"giấu|che giấu|ẩn", r"lời nhắc hệ thống|prompt hệ thống|chỉ dẫn hệ thống",
                  r"in ra|hiển thị|tiết lộ|lặp lại|cho xem|viết ra|dịch|gửi"),
    "th": Lexicon(r"ละเว้น|เพิกเฉย|ไม่ต้องสนใจ|ลืม|ไม่ต้องทำตาม|ยกเลิก",
                  r"คำสั่ง|กฎ|ข้อกำหนด|คำแนะนำ|ข้อจำกัด|พรอมต์ระบบ",
                  r"ตั้งแต่นี้(?:ไป)?\s*คุณ(?:คือ|เป็น)|ตอนนี้คุณคือ|คุณไม่ใช่",
                  r"ไม่มีข้อจำกัด|ไร้ข้อจำกัด|โหมดนักพัฒนา",
                  r"ผู้ใช้", r"อย่าบอก|ห้ามบอก|ไม่ต้องบอก|อย่าแจ้ง",
                  r"ซ่อน|ปิดบัง", r"พรอมต์ระบบ|คำสั่งระบบ",
                  r"แสดง|เปิดเผย|พิมพ์|ทำซ้ำ|แปล|ส่ง"),
    "sw": Lexicon(r"puuza|sahau|usifuate|usitii|batilisha|ruka",
                  r"maagizo|maelekezo|sheria|amri|kanuni|vikwazo",
                  r"kuanzia sasa (?:wewe|u) |sasa wewe ni|wewe si tena|jukumu lako jipya",
                  r"bila vikwazo|usio na vikwazo|bila mipaka|hali ya msanidi",
                  r"mtumiaji|watumiaji", r"usimwambie|usimjulishe|usimweleze|bila kumwambia",
                  r"ficha|mficha", r"maagizo ya mfumo|kidokezo cha mfumo",
                  r"onyesha|fichua|rudia|andika|tafsiri|tuma"),
    "ta": Lexicon(r"புறக்கணி|மறந்துவிடு|மற|பின்பற்றாதே",
                  r"வழிமுறைகள|வழிமுறை|அறிவுறுத்தல|விதிகள|கட்டளைகள|கட்டுப்பாடு",
                  r"இனிமேல் (?:நீ|நீங்கள்)|இப்போது நீ|நீ இனி",
                  r"கட்டுப்பாடும் இல்லாத|கட்டுப்பாடு இல்லாத|கட்டுப்பாடுகள் இல்லாமல்",
                  r"பயனர", r"சொல்லாதே|சொல்ல வேண்டாம்|தெரிவிக்காதே|சொல்லாமல்",
                  r"மறை", r"அமைப்பு அறிவுறுத்தல|சிஸ்டம் ப்ராம்ப்ட்",
                  r"காட்டு|வெளிப்படுத்து|அச்சிடு|மீண்டும் சொல்"),
    "te": Lexicon(r"విస్మరించ|పట్టించుకోకు|మర్చిపో|పాటించకు",
                  r"సూచనల|సూచనలు|నియమాల|నియమాలు|ఆదేశాల|పరిమితుల",
                  r"ఇప్పటి నుండి (?:నువ్వు|మీరు)|ఇప్పుడు నువ్వు|నువ్వు ఇక",
                  r"పరిమితులు లేని|ఎలాంటి పరిమితులు లేకుండా",
                  r"వినియోగదారు", r"చెప్పకు|చెప్పవద్దు|తెలియజేయకు|చెప్పకుండా",
                  r"దాచు|దాచి", r"సిస్టమ్ ప్రాంప్ట్|సిస్టమ్ సూచనలు",
                  r"చూపించు|బయటపెట్టు|ముద్రించు|మళ్ళీ చెప్పు"),
    "mr": Lexicon(r"दुर्लक्ष कर|विसरून जा|विसर|पाळू नको|रद्द कर",
                  r"सूचना|सूचनांकडे|नियम|आदेश|निर्बंध",
                  r"आतापासून (?:तू|तुम्ही)|आता तू|तू आता",
                  r"निर्बंध नसलेला|कोणतेही निर्बंध नाहीत|निर्बंधांशिवाय",
                  r"वापरकर्त्या|वापरकर्ता", r"सांगू नकोस|सांगू नका|कळवू नकोस|न सांगता",
                  r"लपव", r"सिस्टम प्रॉम्प्ट|सिस्टम सूचना",
                  r"दाखव|उघड कर|छाप|पुन्हा सांग"),
}


# Gates written out where a stem list starts with a character class and so yields no words of its own.
_GATES: dict[tuple[str, str], tuple[str, ...]] = {
    ("es", "instructions"): ("instrucci", "regla", "directiv", "indicacion", "norma", "restricci", "pauta", "prompt", "orden"),
    ("fr", "instructions"): ("instruction", "consigne", "règle", "regle", "directive", "prompt", "restriction", "ordre"),
    ("fr", "identity"): ("maintenant", "tu es", "tu ob", "désormais", "desormais", "tu n'es plus", "ta nouvelle", "agis comme", "sans", "mode d"),
    ("ja", "identity"): ("から", "あなた", "制限", "制約", "フィルター", "開発者モード", "脱獄"),
}


def _written_gates(code: str) -> dict[str, dict[str, tuple[str, ...]]]:
    return {part: {"gate": gate} for (lang, part), gate in _GATES.items() if lang == code}


def widened_lexicons() -> dict[str, Lexicon]:
    """Every language's lexicon: these, widened by ``languages_more.ADDITIONS``, and ``MORE_LEXICONS``."""
    from .languages_more import ADDITIONS, MORE_LEXICONS

    lexicons = {code: lex.extended(**ADDITIONS[code]) if code in ADDITIONS else lex for code, lex in LEXICONS.items()}
    lexicons.update(MORE_LEXICONS)
    return lexicons


def _build() -> tuple[Rule, ...]:
    from .languages_more import FLOW_WORDS

    lexicons = {code: lex.extended(**FLOW_WORDS[code]) if code in FLOW_WORDS else lex for code, lex in widened_lexicons().items()}
    return tuple(detector for code, lex in lexicons.items() for detector in lexicon_rules(code, lex, _written_gates(code)))


RULES: tuple[Rule, ...] = _build()
