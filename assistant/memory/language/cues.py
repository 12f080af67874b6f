"""The word lists and patterns :mod:`assistant.memory.language.statements` decides with (English, with cues
for Chinese, Spanish, German, French and Portuguese), and the small predicates built on them.
Pure: no I/O."""

from __future__ import annotations

import re

APOS = "['’]"
#: Interjections: no one's name and no content ("ugh need a gift idea for my mom"), as a regex alternative.
INTERJECTION = r"ugh+|omg|argh+|meh|yay|oops|phew|sigh|welp|lol|haha+|hmm+"
#: Relations typed short, as chat spells them (:func:`~.casual.written` writes them out; validation finds "boyfriend" said as "bf").
SHORT_REL = {"bf": "boyfriend", "gf": "girlfriend"}
FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|oh|ah|well|um+|uh+|" + INTERJECTION + r"|hah|lmao|yes|yeah|yep|no|nope|hey|hi|hello|"
    r"good (?:morning|afternoon|evening)|morning|thanks(?: a lot| so much)?|thank you(?: so much)?|cool|great|nice|"
    r"wow|btw|by the way|also|and|but|anyway|anyways|actually|honestly|fyi|fun fact|guess what|just so you know|"
    r"for context|for the record|quick update|update|(?:big|good|great|bad|sad|exciting|some|huge) news|oh and|right|alright|sure|"
    r"por cierto|a propósito|übrigens|au fait|d['’]ailleurs|aliás|já agora)\b[\s,:;!.\-–—]*)+",
    re.I,
)
CHITCHAT_WHOLE = re.compile(
    r"^(?:thanks?|thank you|thx|ty|ok(?:ay)?|k|cool|nice|great|perfect|awesome|amazing|lovely|wow|lol|haha+|hehe|"
    r"hmm+|yes|yeah|yep|no|nope|sure|fine|right|indeed|exactly|true|hello|hi|hey|bye|good ?night|good morning|"
    r"never ?mind|nvm|no worries|got it|makes sense|sounds good|sounds great|fair enough|of course|my bad|oops|"
    r"gracias|vale|hola|adiós|danke|danke schön|hallo|tschüss|merci|merci beaucoup|bonjour|bonsoir|salut|"
    r"obrigad[oa]|olá|tchau|谢谢|多谢|好的|好|嗯|哈哈+|你好|早上好|晚安|再见|没事|好吧)"
    r"(?:[\s,!.~]*(?:a lot|so much|very much|again|then|there|thanks|thank you|you|muy útil|beaucoup))*[\s!.~？?。！😊🙂👍❤️]*$",
    re.I,
)
REACTION = re.compile(
    r"^(?:(?:i|we)\s+(?:[\w'’]+\s+)?(?:see|agree|disagree|understand|get it|got it|know|remember)"
    r"(?:\s+(?:now|that|it|this|you|with you|with that|what you mean))?\s*[,.!]*\s*(?:thanks?.*)?$"
    r"|i meant\b|i mean\s+(?:the|that|it|this)\b|i (?:know|think so|guess so|hope so|suppose so|doubt it)\s*[,.!?]*\s*(?:right)?[\s?!.]*$"
    r"|i\s+(?:really\s+)?(?:love|like|hate|enjoyed|appreciate|didn['’]t know|did not know|never knew|don['’]t get"
    r"|don['’]t understand|didn['’]t understand|doubt)\s+(?:it|that|this|them|those|these)\b[^,;]*(?:,\s*thanks?.*)?$"
    r"|i(?:['’]m| am) not sure (?:that|this|it|about (?:that|this|it)|if that|what you)\b"
    r"|i (?:think|believe|feel|guess) (?:you|your|that(?:['’]s| is) (?:wrong|right|not))\b"
    r"|(?:i|we)\s+(?:have|had|got|['’]ve got)\s+(?:a|one|another|some|a few|a couple of|a quick|two|three)\s+(?:\w+\s+)?"
    r"(?:questions?|requests?|favou?rs?)\b"
    r"|i(?:['’]m| am) going to (?:ask|tell|show|paste|send|give) you\b|i(?:['’]ll| will) (?:ask|tell|paste|send|give|show) you\b"
    r"|my (?:question|problem|request|point|issue) (?:is|was)\b|i was (?:just )?(?:testing|kidding|joking)\b"
    r"|let me (?:know|think|see|check|rephrase|explain)\b|i (?:asked|was asking|said|was saying) (?:you|about|that)\b"
    r"|i(?:['’]m| am) (?:(?:so|really|very|a bit|a little|kind of|still)\s+)?(?:sorry|confused|lost|back|here|done)\b"
    r"|i(?:['’]m| am) (?:good|fine|ok|okay|great|alright|well|not bad|doing (?:well|good|great|fine|ok|okay|alright))"
    r"(?:\s*,?\s*(?:thanks|thank you|and you|you))?[\s.!]*$"
    r"|i(?:['’]ll| will) (?:try|do|check|look into|give|keep|bear|use|read|watch|think about|consider|test)\s+"
    r"(?:it|that|this|them|those|these)\b|i(?:['’]ll| will) let you know\b|i (?:tried|did) (?:it|that|this|them)\b"
    r"|(?:it |that |this )?work(?:ed|s) (?:like a charm|perfectly|great|fine|now)\b|i got it\b|i have no idea\b"
    r"|(?:that|it|this|you) (?:really )?(?:helped|helps|worked|works|did the trick|makes sense|made sense)\b|fixed it\b|i(?:['’]m| am) not sure\s*[.!]*$|me too\b|same here\b|my pleasure\b)",
    re.I,
)
WH = r"(?:what|what['’]s|where|where['’]s|when|when['’]s|who|who['’]s|whom|whose|which|why|how|how['’]s)"
AUX = (r"(?:is|are|was|were|am|do|does|did|can|could|should|would|will|shall|may|might|must|has|have|had|isn['’]t"
        r"|aren['’]t|don['’]t|doesn['’]t|didn['’]t|can['’]t|won['’]t|shouldn['’]t|wouldn['’]t)")  # fmt: skip
QUESTION = re.compile(
    r"[?？]\s*[\"'”’)\]]*\s*$|^¿"
    r"|^" + WH + r"\s+(?:" + AUX + r"|much|many|long|old|often|far|about|else|time|kind|sort|type|day|year|to|if"
    r"|come|exactly|\w+['’]s)\b|^" + WH + r"\s*$"
    r"|^(?:what|where|when|who|how)['’]?s\b"  # "whats my daughters name": typed fast, no apostrophe
    r"|^(?:what|which|wat|wich)\s+[\w-]+\s+" + AUX + r"\s+\w"  # "what car do i drive", "wat school does mia go to"
    r"|^" + AUX + r"\s+(?:i|you|we|your|it|he|she|they|there|this|that|these|those|the|any|anyone|someone)\b"
    r"|^(?:does|is|are|was|were|can|could|should|would|will)\s+my\b"
    r"|^(?:do|did)\s+my\b(?!\s+(?:first|last|second|third|\d+(?:st|nd|rd|th)|own|usual|weekly|daily|monthly|yearly|annual)\b)"  # "did my first sea swim": done, not asked
    r"|^(?:any|anything|anyone|other)\s+(?:\w+\s+)?(?:tips|ideas|suggestions|recommendations|advice|thoughts|else)\b"
    r"|^(?:i|we)(?:\s+(?:was|am|were|are)|['’](?:m|re))?\s+(?:wondering|curious)\b|^i wonder\b"
    r"|^(?:i|we)(?:['’]d| would)\s+(?:like|love) to (?:know|find out|understand|learn) (?:what|where|when|who|why|how|if|whether)\b"
    r"|^(?:i|we)(?:['’]d| would)\s+(?:like|love) to know\b|^i (?:want|need) to (?:know|find out)\b|^(?:does|do) anyone know\b"
    r"|^(?:tell me|guess) (?:what|where|when|who|why|how|if|whether)\b"
    r"|(?:吗|呢|么)[。!！]?\s*$|什么|哪里|哪儿|哪个|哪些|怎么|怎样|为什么|多少|是否|几点|几岁|谁"
    r"|^(?:est-ce que|qu['’]est-ce que)\b",
    re.I,
)
REMEMBER = re.compile(
    r"^(?:please\s+|pls\s+|and\s+)?(?:remember|note|keep in mind|bear in mind|don['’]t forget|do not forget"
    r"|make a note|for future reference)\b(?!\s+(?:when|how|what|where|who|why|if|whether)\b)(?:\s+(?:that|this))?[\s:,-]*\S|^(?:请)?(?:记住|记一下)"
    r"|^(?:can|could|would|will) you (?:please )?(?:remember|note|keep in mind|make a note)(?: of| that)?\s+\S",
    re.I,
)
STANDING = re.compile(
    r"\b(?:from now on|in (?:the )?future|going forward|by default|unless i say otherwise|for all future"
    r"|don['’]t ever|do not ever|whenever you|every time you|each time you|ab jetzt|ab sofort|von nun an"
    r"|a partir de ahora|desde ahora|de ahora en adelante|désormais|à partir de maintenant|dorénavant"
    r"|a partir de agora|daqui em diante)\b|以后|今后|从现在起|从现在开始"
    r"|(?:^|,\s*)(?:please\s+)?(?:always|never)\b|^(?:please\s+)?(?:don['’]t\s+)?call me\b|\bcall me\s+(?!back\b)[A-Z]"
    r"|\b(?:always|never|immer|nie|niemals|siempre|nunca|toujours|jamais|sempre)\b(?=.*\b(?:answer|reply|respond|speak|talk"
    r"|address|antwort|sprich|schreib|respond|contest|habla|escríbe|répon|parl|écri|respon|fal|escrev)\w*)"
    r"|\b(?:answer|reply|respond|speak|talk|address|antwort|sprich|respond|contest|habla|répon|parl|respon|fal)\w*\b"
    r"(?=.*\b(?:always|never|immer|nie|niemals|siempre|nunca|toujours|jamais|sempre)\b)|(?:一直|总是|永远|每次)(?=.*(?:回答|回复|叫我|称呼))",
    re.I,
)
IMPERATIVE = frozenset(
    """write give make tell list suggest explain help create draft generate compare show recommend rewrite translate
    summarize summarise continue stop try redo use expand fix keep go say check describe find plan calculate convert
    add remove change turn put send remind name pick choose read answer reply respond be don't do start finish edit
    format shorten simplify proofread correct paraphrase outline brainstorm imagine pretend act design build code
    implement debug optimize optimise teach quiz test ask sort rank rate review analyze analyse evaluate estimate
    predict define clarify elaborate compose prepare
    search recap break walk guide draw sketch solve proceed repeat restate retry regenerate skip undo cancel
    include exclude insert replace delete split merge rephrase reword count tldr share fill complete improve polish
    tweak adjust multiply divide""".split()
)  # fmt: skip
REQUEST_START = re.compile(
    r"^(?:please|pls|plz|kindly|can you|could you|would you|will you|would you mind|can u|could u|let['’]s|let us"
    r"|let me have|here['’]s|here is|here are|i want you to|i need you to|i['’]d like you to|i would like you to"
    r"|i(?:['’]d| would) love (?:it if )?you to|i(?:['’]d| would) appreciate (?:it )?if you|i need help|i want help|i['’]d like help|help me|give me|show me|tell me"
    r"|por favor|puedes|podrías|podria|escr[ií]beme|escribe|dame|dime|hazme|haz|ayúdame|ayudame|explícame|explica"
    r"|recomiéndame|recomienda|traduce|cuéntame|genera|crea|resume|sugiere"
    r"|bitte|kannst du|könntest du|können sie|könnten sie|schreib|schreibe|gib|erklär|erkläre|sag mir|nenne|mach"
    r"|hilf|übersetze|empfiehl|zeig|fasse"
    r"|s['’]il te pla[iî]t|s['’]il vous pla[iî]t|peux-tu|pouvez-vous|pourrais-tu|pourriez-vous|tu peux|écris|donne"
    r"|dis-moi|explique|aide-moi|fais|traduis|recommande|propose|résume"
    r"|escreva|escreve|me d[aáê]|d[eê]-me|me ajud[ea]|ajude-me|explique|traduza|recomende|fa[çc]a|crie|me diga"
    r"|diga|pode|podes|poderia"
    # a reminder, an alarm or a timer asked of the assistant: "Me lembra de pagar ...", "Erinnere mich morgen an ..."
    r"|remind me|set (?:a|an|the|me a) (?:timer|alarm|reminder)|wake me|me lembr[ae]|lembr[ae]-me|recuérdame|recordame"
    r"|erinnere? mich|erinnert mich|rappelle[- ]moi|rappelez[- ]moi|pon(?:me)? una (?:alarma|alerta|recordatorio)"
    r"|stell (?:einen|den) (?:wecker|timer)|mets (?:un|une) (?:minuteur|alarme|réveil|rappel)|coloc?a (?:um|uma) (?:alarme|lembrete))\b"
    r"|^(?:请|帮我|帮忙|给我|麻烦|能不能|能否|可以帮|你能|你可以|告诉我|推荐|写一|翻译|提醒我)",
    re.I,
)
# a request that hands over text to work on: what follows it in the message is that text
PASTED = (r"(?:email|e-mail|text|message|letter|paragraph|essay|code|article|post|draft|note|list|story|poem|document"
           r"|sentences?|bio|cover letter|review|words|lines|transcript|notes|report|summary|script|chapter|speech)")
PASTE_INTRO = re.compile(
    r"^(?:here['’]s|here is|here are|below is|the following)\b(?:\s+[\w'’-]+){0,3}?\s+" + PASTED + r"\b|:\s*$"
    r"|\b(?:proofread|feedback|review|check|summari[sz]e|translate|rewrite|edit|correct|improve|rephrase)\b"
    r"|\bth(?:is|ese) " + PASTED + r"\b",
    re.I,
)
CONTENT = (r"(?:recipe|recipes|poem|poems|story|stories|song|lyrics|joke|jokes|name|names|idea|ideas|word|words|phrase"
            r"|quote|quotes|suggestion|suggestions|recommendation|recommendations|tip|tips|advice|template|script|slogan"
            r"|email|e-mail|letter|essay|summary|list|article|caption|bio|message|toast|speech|itinerary|plan|outline"
            r"|example|examples|explanation|answer|translation|haiku|limerick|riddle|quiz|code|function|program|gift idea"
            r"|gift ideas|book recommendation|playlist|meal plan|workout|schedule|title|headline|description|review)")  # fmt: skip
WANT_CONTENT = re.compile(
    r"^(?:i|we)(?:\s+really)?(?:\s+(?:need|want|would like|would love|am looking for|was looking for|are looking for)"
    r"|['’](?:d like|d love|m looking for|re looking for))\s+(?:a|an|some|the|another|one|two|three|\d+|a few|more)?\s*"
    r"(?:[\w'-]+\s+){0,3}?" + CONTENT + r"\b",
    re.I,
)
WANT_CONTENT_INTL = re.compile(
    r"^(?:je voudrais|j['’]aimerais|je veux|il me faut|quiero|querría|me gustaría|necesito|ich möchte|ich hätte gern"
    r"|ich brauche|ich will|eu quero|eu queria|queria|gostaria de|preciso de|j['’]ai besoin (?:d['’]|de|des)|我想要|我需要)\s*(?:un|une|des|du|le|la|les|una|unos"
    r"|unas|einen|eine|ein|ein paar|um|uma|uns|umas|几个|一个|一份)?\s*(?:[\w'-]+\s+){0,2}?(?:recette|recettes|receta|recetas"
    r"|rezept|rezepte|receita|receitas|poème|poema|gedicht|idée|idées|idea|ideas|idee|ideen|ideia|ideias|liste|lista"
    r"|histoire|historia|geschichte|história|conseil|conseils|consejo|consejos|tipp|tipps|dica|dicas|résumé|resumen"
    r"|zusammenfassung|resumo|菜谱|食谱|建议|故事|诗)"
    r"|^我(?:需要|想要)[^。，,.！!]{0,15}?(?:点子|主意|建议|菜谱|食谱|故事|诗|推荐)",
    re.I,
)
#: A thing's date set or changed ("the Oliwa job got pushed back, it now starts next Thursday"): with a date
#: said, a clause about a thing of the person's life, not a comment on it ("the house is chaos").
SCHEDULED = re.compile(r"\b(?:starts?|begins?|ends?|opens?|moved|pushed|postponed|rescheduled|delayed|brought\s+forward|cancell?ed"
                       r"|(?:is|are|was|were)\s+(?:now\s+)?(?:on|due))\b", re.I)
# "Just got back from Crete.", "Moved to Berlin last month.": the person's life, subject left out
SUBJECT_DROPPED = re.compile(
    r"^(?:(?:just|finally|recently|also|officially)\s+)?(?:got|moved|started|finished|bought|sold|adopted|quit|joined"
    r"|left|graduated|married|passed|failed|broke|lost|won|went|came back|arrived|landed|booked|signed|retired|turned"
    r"|spent|visited|flew|drove|ran|moving|starting|heading|flying|leaving)\s+(?!it\b|that\b|this\b|them\b)\w"
    r"|^(?:first|last)\s+(?:full\s+)?(?:day|night|week|month|shift|morning)\s+(?:at|in|as|of)\s+\w",  # "first night in the new place"
    re.I,
)
ABOUT_ME = re.compile(r"^(?:(?:a (?:bit|little)|some (?:facts|things)|quick facts|more|something)\s+)?(?:about me|about myself)"
                       r"\s*:?$|^my (?:details|background|profile|info)\s*:?$", re.I)
HEDGE = re.compile(r"^(?:i|we)\s+(?:think|believe|guess|suppose|reckon|bet|feel like|hope|doubt)\s+(?:that\s+)?(?P<rest>.+)$", re.I)
FIRST_PERSON = re.compile(
    r"\b(?:i|i['’]m|i['’]ve|i['’]d|i['’]ll|me|my|mine|myself|we|we['’]re|we['’]ve|we['’]d|we['’]ll|our|ours|ourselves)\b"
    r"|我"
    r"|\b(?:yo|mi|mis|mío|mía|conmigo|nosotros|nosotras|nuestro|nuestra|nuestros|nuestras|soy|estoy|tengo|vivo|trabajo"
    r"|acabo|voy|doy|fui|estuve|tuve|quiero|prefiero|odio|necesito|estudio|nací|crecí|llevo|hablo)\b|\bme\s+(?:llamo|gusta"
    r"|encanta|caso|mudé|mudo)\b"
    r"|\b(?:ich|mein|meine|meinen|meinem|meiner|meines|mich|mir|wir|unser|unsere|unseren|unserem|uns)\b"
    r"|\b(?:je|moi|mon|ma|mes|nous|notre|nos)\b|\b[jm]['’]"
    r"|\b(?:eu|meu|minha|meus|minhas|mim|comigo|nós|nosso|nossa|nossos|nossas|moro|sou|tenho|trabalho|gosto|nasci"
    r"|estudo|estou|vou|a gente)\b"
    # the verb says the person without a pronoun: es/pt first person plural ("vendimos", "tenemos", "moramos"); French
    # "on" as "we", with its verb ("On habite à Lille", "on a deux enfants", "On part en Bretagne")
    r"|\b(?!(?:ramos|primos)\b)[a-zñç]+(?:amos|emos|imos)\b"
    # Spanish "he" + a participle ("he empezado"), a first-person preterite opening a clause ("Trabajé diez años"),
    # Portuguese first-person preterite ("trabalhei", "comprei")
    r"|\bhe\s+[a-zñ]+(?:ado|ido)\b|(?:^|(?<=[,;]\s)|(?<=\by\s)|(?<=\bpero\s))[a-zñ]{4,}[éí]\b|\b[a-zç]{3,}ei\b"
    r"|(?:^|(?<=[,;]\s)|(?<=\bet\s)|(?<=\bmais\s))on\s+(?:a\s+(?:\w+[éiu]s?|deux|trois|un|une|des)|va|est|était|part|habite|vit|fait"
    r"|aime|adore|cherche|prend|travaille|passe|reste|vient|revient|doit|peut|veut|s['’]\w+)\b",
    re.I,
)
US = re.compile(r"\bus\b")  # lowercase "us" only: "US" is the country
PERSON = (r"(?:mum|mom|mother|dad|father|parents?|wife|husband|partner|spouse|son|daughter|sons|daughters|kids?|children"
           r"|child|baby|twins|sister|brother|siblings?|boss|manager|friend|friends|best friend|neighbou?r|girlfriend"
           r"|boyfriend|fianc[ée]e?|nephew|niece|aunt|uncle|grand(?:ma|pa|mother|father|son|daughter)|granny|cousin"
           r"|colleague|coworker|co-worker|roommate|flatmate|landlord|landlady|teacher|doctor|dog|cat|puppy|kitten|team"
           r"|family|in-laws|pal|buddy|mate|bestie|eldest|youngest)")  # fmt: skip
# "My best pal is Shona", "our daughter's name is Mila": a relation, then its name after "is" (an English word such
# as "Japanese" is no name: the caller checks)
#: A word (or two) naming a person of the person's life, with its plural ("sister", "best friends").
PERSON_WORD = re.compile(r"\b" + PERSON + r"s?\b", re.I)
REL_IS_NAME = re.compile(r"\b(?i:my|our)\s+(?:[\w'’-]+\s+){0,2}?(?i:" + PERSON[3:-1] + r")(?:['’]s\s+name)?\s+(?:is|was)\s+(?P<name>[A-Z][\w'’-]+)\b")
OWN_NAME = re.compile(r"\b(?:[Mm]y|[Oo]ur)\s+(?:[\w'-]+\s+){0,2}?(?i:" + PERSON[3:-1] + r")(?:['’]s name is|,| is called| is named"
                       r"| named| called)?\s+(?P<name>[A-Z][\w'’-]+)")
#: Kin for life (not a partner, a friend or a role): who they are to the person is never ended by a
#: change in their own life ("User's son is Filip." / "filip starts 4th grade").
KIN = re.compile(r"\b(?:mum|mom|mother|dad|father|parents?|sons?|daughters?|kids?|children|child|twins|sisters?|brothers?|siblings?"
                 r"|nephew|niece|aunt|uncle|grand(?:ma|pa|mother|father|son|daughter|child)|granny|cousin|eldest|youngest)\b", re.I)
FAMILY_NAME = re.compile(r"\b(?:Mum|Mom|Mam|Mama|Mommy|Mummy|Dad|Daddy|Papa|Grandma|Grandpa|Granny|Nana|Grandad)\b"
                         r"|^(?i:the|our)\s+(?i:twins|kids|children|boys|girls|baby|in-laws|grandparents)\b")  # "The twins, Isla and Rory, are 8."
THIRD_PERSON = re.compile(r"^(?:he|she|his|her)(?:\b|['’](?:s|ll|d)\b)|\b(?:his|her|their) name is [A-Z]", re.I)
PAST = frozenset(
    """went got had made took bought saw met ran came left found felt gave told thought knew lost won began became brought
    built sold spent kept held drove flew ate wrote broke chose fell forgot grew hurt quit sat stood taught woke wore paid
    said slept swam sang spoke threw sent lent dug hung heard did died fed led rang rode caught drank shook froze fought
    stole swore""".split()
)  # fmt: skip
#: An English past verb as a regex alternative: a regular "-ed" form (two letters or more before it) or an irregular one.
PAST_WORD = r"(?:[a-z]{2,}ed|" + "|".join(sorted(PAST)) + r")"
#: A weekday's name as a regex (lower case: compile with re.I): "monday" ... "sunday".
WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
#: A weekday before its date, also written short ("to thurs 2 april", "on sat 14th"): compile with re.I.
WEEKDAY_BEFORE_DATE = r"(?:" + WEEKDAY + r"|mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)\.?"
#: One emoji (the pictographs and the dingbats/symbols blocks), as a regex character class.
EMOJI = r"[\U0001F300-\U0001FAFF\u2600-\u27BF]"
#: A month written short, as a regex (compile with re.I): "jan" ... "dec", "sep"/"sept" ("may" is its whole name).
MONTH_SHORT = r"(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)"
_MON_ABBR = MONTH_SHORT + r"\.?"  # a month written short, next to its day
NARRATIVE = re.compile(
    r"\b(?:today|tonight|yesterday|tomorrow|this (?:morning|afternoon|evening|week|weekend|month|year)"
    r"|last (?:night|week|weekend|month|year|time)|next (?:week|weekend|month|year)|ago|finally"
    r"|" + WEEKDAY + r"s?|january|february|march|april|may|june|july|august|september"
    r"|october|november|december|christmas|xmas|easter)\b|\b\d+(?:[.,]\d+)?\s*(?:km|miles?|kg|lbs?|minutes|mins|hours|days|weeks)\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+" + _MON_ABBR + r"\b|\b" + _MON_ABBR + r"\s+\d{1,2}(?:st|nd|rd|th)?\b",  # "12 nov", "dec 20th"
    re.I,
)
# what a sentence about the world, not the person, talks about
WORLD = re.compile(r"\b(?:rain|raining|snow|snowing|weather|forecast|sunny|temperature|capital of|population)\b"
                    r"|\b(?:is|are|was|were) (?:over |about |around |almost )?[\d,.]+\s*(?:km|miles?|m|meters|metres|feet)\s+"
                    r"(?:long|tall|high|wide|deep)\b", re.I)
HEADER = re.compile(r"(?:[\w-]+\s+){0,2}(?:question|update|news)\s*[:–—-]\s+", re.I)


def past_tense(text: str) -> bool:
    for w in re.findall(r"[a-z]+", text.lower()):
        if w in PAST or (len(w) > 4 and w.endswith("ed") and not w.endswith("eed") and w not in ("based", "related")):
            return True
    return False


def own_names(text: str) -> set[str]:
    """Names the person gives their own people and pets: "my partner Tom", "our dog Pepper",
    "my sister's name is Ana" -> {"Tom", "Pepper", "Ana"}."""
    return {re.sub(r"['’]s$", "", m["name"]) for m in OWN_NAME.finditer(text)}


def strip_fillers(text: str) -> str:
    t = text.strip()
    prev = None
    while t != prev:
        prev = t
        t = FILLER.sub("", t).strip()
    return t


def has_first_person(text: str) -> bool:
    return FIRST_PERSON.search(text) is not None or US.search(text) is not None


def imperative(core: str) -> bool:
    first = re.match(r"[\w'’;]+", core)
    if first is None:
        return False
    return first.group().lower().replace("’", "'") in IMPERATIVE


# A quoted passage: words in paired quotes ("...", “...”, «...», „...“, 「...」). It is someone's words or
# text handed over ("Fix the grammar in this: "We is going..."", "Traduce: «Mi abuelo nació en Lugo»",
# "My boss said "we're all getting a raise""), not the person telling their life, when it is a clause:
# 3+ words (4+ CJK characters) and it follows a colon, ends a sentence inside the quotes, or speaks in
# the first or second person. A title or a name in quotes ("I'm reading "The Old Man and the Sea"",
# "I work at "Happy Days"") is none of these.
_QUOTE_PAIRS = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|«([^»\n]+)»|„([^“”\n]+)[“”]|「([^」\n]+)」|『([^』\n]+)』')
_QUOTE_PERSON = re.compile(r"\b(?:i|i['’]m|we|we['’]re|my|our|you|your|ich|wir|mein\w*|unser\w*|du|yo|mi|mis|nosotros|tú|je|j['’]|nous|mon|ma|mes"
                           r"|tu|vous|eu|nós|meu|minha|você)\b|我|你", re.I)


def quoted_passages(text: str) -> list[tuple[int, int]]:
    """Spans (with their quote marks) of the quoted clauses of ``text`` (see :data:`_QUOTE_PAIRS`)."""
    out = []
    for m in _QUOTE_PAIRS.finditer(text):
        inner = next(g for g in m.groups() if g is not None).strip()
        cjk = len(re.findall(r"[\u4e00-\u9fff]", inner))
        if len(inner.split()) < 3 and cjk < 4:
            continue
        after_colon = re.search(r"[:：]\s*$", text[: m.start()]) is not None
        if after_colon or re.search(r"[.!?。！？]$", inner) or _QUOTE_PERSON.search(inner):
            out.append((m.start(), m.end()))
    return out


#: Titles whose full stop ends no sentence ("Dr. Priya Natarajan", "Sra. López", "Hr. Weber").
TITLES = ("Dr", "Mr", "Mrs", "Ms", "Prof", "St", "Sr", "Sra", "Dra", "Mme", "Hr", "Fr", "dr", "mr", "mrs", "ms", "prof")  # typed in lower case too
#: After a sentence-ending lookbehind: not the full stop of a title.
NOT_AFTER_TITLE = "".join(rf"(?<!\b{t}\.)" for t in TITLES)
#: Inside a sentence: a title's full stop and the space after it.
TITLE_DOT = "(?:" + "|".join(rf"(?<=\b{t})" for t in TITLES) + r")\.\s"

#: A clause that only gives a name, its subject left out: the name goes on as the subject.
CALLED_ONLY = re.compile(r"^(?i:se\s+llama|se\s+chama|chama-se|s['’]appelle|heißt|heisst|her\s+name\s+is|his\s+name\s+is)\s+(?P<n>[A-ZÀ-Ý][\w'’-]+)\s*$")
#: After an adverb, a clause's own subject: ", also I'm allergic to ..." takes none from the clause before.
OWN_SUBJECT = re.compile(r"(?:(?:also|still|now|just|and|plus)\s+)+(?:I|I['’](?:m|ve|d|ll)|we|he|she|they)\b", re.I)
