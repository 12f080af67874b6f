"""What a clause does besides asserting a fact about the person, decided by its grammar (issue
24): a wish or a counterfactual in the conditional mood, an intention that was not carried out, the
person's own opinion frame, a plan that hangs on a condition still to come, a state of today, a
feeling about the clause before, and clauses that only carry the content of the clause before.

    irrealis("Ich würde gern mal nach Japan reisen")                # True: würde (Konjunktiv II)
    irrealis("Trabajo en una panadería")                            # False: -ría after an article is a noun
    intention("Eigentlich wollte ich heute joggen")                 # True: a past modal of intending
    opinion_frame("Ich finde, dass Berlin im Sommer am schönsten ist")  # True
    contingent("Falls es morgen regnet, gehen wir ins Kino.")       # True: a condition on a day to come
    today_state("Heute bin ich ziemlich erkältet")                  # True
    anaphoric_comment("das nimmt mich ziemlich mit")                # True: "das" is the clause before
    dependent("irgendwann aufs Land zu ziehen")                     # True: a zu-infinitive

Rules, in the six capture languages (Chinese only where it marks them with words):

- **irrealis**: a finite verb in the conditional or past subjunctive -- would/could/'d, should;
  -ría, -iera/-iese; würde/wäre/hätte/könnte/müsste/sollte; -rais/-rait; -ria -- or a wish word (wish, ojalá,
  wünschte, oxalá, 但愿). A form that an article, possessive or preposition comes before is a noun
  ("una panadería", "a padaria", "le portrait") and does not count; an English modal counts only
  as the clause's verb right after its subject ("I'd love to", not "the impact I could make"),
  and not in a habit of the past ("we would walk for hours when I was a kid");
- **intention**: a past modal of intending (wollte, quería, iba a, voulais, allais, queria,
  was going to, meant to), or a decision still weighed (we're thinking of, estamos
  pensando en, wir überlegen, on réfléchit à): what the person meant or means to do, not what
  they do;
- **opinion frame**: the person's verb of thinking or hoping (ich finde/glaube/denke/hoffe,
  creo/pienso/espero, je pense/crois/trouve/espère, acho/penso, I think/believe/hope) followed by its content (after "dass", "que",
  "that", a comma, or nothing: then the next clause is its content);
- **contingent**: the sentence opens with a condition (if, wenn, falls, si, se, 如果) and names a
  day still to come (tomorrow, morgen, am Samstag, mañana, el sábado, demain, amanhã, 明天 ...) or
  puts what follows the condition in the future (will, werden, vamos a, -ré/-rá, -rei, -rons): a
  plan that hangs on the condition; a habit said as a condition does neither;
- **today state**: a first-person state verb (I'm, ich bin / bin ich, estoy, estou, je suis, me
  siento, me duele, tengo dolor) anchored to today (today, heute, hoy, aujourd'hui, hoje, this
  morning ...), with no number and no name; or how the person is right now said with the dative
  ("Mir geht es nicht gut", "Mir ist kalt") or with hunger, thirst, sleepiness ("Ich habe
  Hunger", "Tengo hambre", "J'ai faim"): how the person is, not who they are;
- **anaphoric comment**: a clause whose subject or object is a bare demonstrative standing for the
  clause before (das/dies + verb, eso/esto, ça/cela, isso/isto, that/this + verb, the Spanish and
  Portuguese object clitics lo/la + a verb), or a German da-compound (davor, darüber, damit ...)
  with a feeling word (Angst, miedo, peur, medo, scared): a comment or a feeling about it;
- **dependent**: a clause that opens with a complementizer (dass, que, that, ob) or a connector
  of consequence (deshalb, so, por eso, donc, então), or is a German zu-infinitive without a
  subject of its own: the content or the consequence of the clause before, so when that clause
  is no statement, neither is this one.

Pure: no I/O, no model.
"""

from __future__ import annotations

import re

from assistant.memory.language.cues import WEEKDAY
from assistant.memory.language.langid import detect

# conditional / past-subjunctive verb forms (es, de, fr, pt; English modals)
# (the forms of the second person are left out: "Deberías saber que ...", "could you" speak to the assistant)
# English "would"/"could"/"'d" only as the verb of the clause, right after its subject at the start ("I'd love to ...",
# "My husband would love a dog"), not inside it ("the impact I could make", "couldn't find my way out")
_IRREALIS_EN = re.compile(
    r"^(?:(?:and|but|so|honestly|really)\s+)*(?:i|we|he|she|they|(?:my|our)\s+[\w'’-]+|[A-Z][\w'’-]+)\s+(?:(?:really|still|also|just|so)\s+)?"
    r"(?:would|could|wouldn['’]t|couldn['’]t|should|shouldn['’]t|ought to)\b(?!\s+you\b)"
    r"|^(?:(?:and|but|so|honestly)\s+)*(?:i|we|he|she|they)['’]d\b(?!\s+(?:just|already|never|ever|only|been|had|got|gone|done|seen|\w+ed)\b)"
    r"|^(?:(?:and|but|so)\s+)*(?:i|we)\s+wish\b|^if only\b",
    re.I,
)
# "would" of a habit in the past: "Max and I would take long walks when I was a kid"
_PAST_HABIT = re.compile(r"\bwhen (?:i|we) (?:was|were)\b|\bas (?:a )?(?:kids?|child|children|teenagers?)\b|\bgrowing up\b|\bback then\b"
                         r"|\bin those days\b|\bused to\b", re.I)
# German, Chinese and wish words are verbs wherever they stand
_IRREALIS_WORD = re.compile(
    r"\b(?:würde|würden|wäre|wären|hätte|hätten|könnte|könnten|müsste|müssten|sollte|sollten|bräuchte|wünschte|wünschten)\b"
    r"|应该|\b(?:ojalá|oxalá|tomara)\b|但愿",
    re.I,
)
# Spanish and French conditional / past subjunctive ("gustaría", "tuviera", "aimerais") and, in a Portuguese clause, the
# Portuguese conditional ("compraria"): spelt like nouns ("ingeniería", "panadería", "veterinaria", "portrait"), so they
# count only where a verb stands -- opening the clause, or after a subject pronoun, a clitic, a negation or a conjunction
# (not after "la"/"los"/"las": articles too, "la guardería")
_ROMANCE_FORM = re.compile(r"\b\w{2,}(?:ría|ríamos|rían|iera|iéramos|ieran|iese|iesen|rais|rait|rions|raient)\b"
                           r"|\b(?:fuera|fuese|tuviera|pudiera|hubiera|hiciera|estuviera)\b", re.I)
_IRREALIS_PT = re.compile(r"\b\w{3,}(?:aria|eria|iria|ariam|eriam|iriam|aríamos|eríamos|iríamos)\b", re.I)
_VERB_BEFORE = re.compile(r"(?:^|\b(?:yo|tú|él|ella|usted|nosotros|nosotras|ellos|ellas|me|te|le|les|nos|os|se|lo|no|ya"
                          r"|también|nunca|que|si|y|pero|aunque|como|je|tu|il|elle|on|nous|vous|ils|elles|ne"
                          r"|et|mais|eu|você|ele|ela|a gente|nós|vocês|eles|elas|não|também|e|mas)\s+"
                          r"|\b(?:j|m|t|s|qu)['’]\s*"  # "J'aimerais"
                          r"|\b(?:mi|mis|mon|ma|mes|meu|minha|meus|minhas|su|sa|son)\s+[\wÀ-ÿ-]+\s+)$", re.I)  # "Mon mari voudrait"


def irrealis(clause: str) -> bool:
    """A wish or a counterfactual: a verb in the conditional or past subjunctive, or a wish word
    (see the module docstring); a Romance form only where a verb stands."""
    c = clause.strip()
    if _IRREALIS_EN.search(c):
        return not _PAST_HABIT.search(c)
    if _IRREALIS_WORD.search(c):
        return True
    found = list(_ROMANCE_FORM.finditer(c))
    if detect(c) == "pt":
        found += list(_IRREALIS_PT.finditer(c))
    return any(_VERB_BEFORE.search(c[:m.start()]) for m in found)


# (not English "wanted to" nor Portuguese "ia": in a story they tell what was done or what used to be done)
# ("iba a" / "allais" with an infinitive: "iba a la escuela", "j'allais à l'école" say where the person used to go)
_INTENTION = re.compile(r"\b(?:wollte|wollten|wolltest|quería|queríamos|voulais|voulait|voulions|queria|was going to|were going to"
                        r"|meant to)\b|\b(?:iba|íbamos) a\s+\w+(?:ar|er|ir)(?:me|te|se|lo|la|le|nos|les|los|las)?\b|\b(?:allais|allait|allions)\s+\w+(?:er|ir|re)\b", re.I)


# still deciding: "we're thinking of/about", "estamos pensando en", "wir überlegen", "on réfléchit à", "estamos pensando em"
_DELIBERATING = re.compile(r"\b(?:(?:i['’]m|we['’]re|i am|we are)\s+(?:\w+\s+)?(?:thinking|considering)\s+(?:about|of)?"
                           r"|(?:estoy|estamos)\s+(?:\w+\s+)?(?:pensando|considerando|planteándo\w*)\s+(?:en|si)"
                           r"|(?:ich|wir)\s+(?:\w+\s+)?überlegen?|überlegen\s+(?:wir|uns)|on\s+(?:réfléchit|pense)\s+à"
                           r"|(?:estou|estamos)\s+(?:\w+\s+)?(?:pensando|considerando)\s+em)\b", re.I)


def intention(clause: str) -> bool:
    """A past modal of intending, or a decision still being weighed: what the person meant, or
    means, to do, not what they do (see the module docstring)."""
    return _INTENTION.search(clause) is not None or _DELIBERATING.search(clause) is not None


_OPINION = re.compile(
    r"^(?:(?:and|but|y|pero|und|aber|et|mais|e|mas)\s+)?(?:(?:ich|yo|je|j['’]|eu|i|we|wir)\s*)?"
    r"(?:(?:finde|glaube|denke|meine)(?:\s+nicht)?|(?:no\s+)?(?:creo|pienso)|opino|me parece|(?:ne\s+)?(?:pense|crois|trouve)(?:\s+pas)?"
    r"|(?:não\s+)?(?:acho|penso)|(?:don['’]t\s+)?(?:think|believe)|reckon|guess"
    r"|hoffe|espero|espère|hope"  # a hope is no more a fact than an opinion
    r"|habe das gefühl|hab das gefühl|tengo la (?:sensación|impresión)|j['’]ai l['’]impression|tenho a (?:impressão|sensação)"
    r"|have the feeling|get the feeling)"
    r"(?:\s+(?:ich|yo))?(?=\s*(?:,|$)|\s+(?:dass|daß|que|qu['’]|that)\b)",
    re.I,
)


_OPINION_ZH = re.compile(r"^(?:我|我们)(?:觉得|认为|感觉|希望|相信|估计|猜)")


# German puts the verb second: after a first element the verb of thinking comes before "ich"
# ("Ehrlich gesagt finde ich Berlin deprimierend", "Das glaube ich nicht", "Er kommt, glaube ich")
_OPINION_DE_INVERTED = re.compile(r"\b(?:finde|glaube|denke|hoffe)\s+ich\b", re.I)


def opinion_frame(clause: str) -> bool:
    """The person's own verb of thinking with its content (see the module docstring)."""
    c = clause.strip()
    return _OPINION.match(c) is not None or _OPINION_ZH.match(c) is not None or _OPINION_DE_INVERTED.search(c) is not None


def opinion_frame_only(clause: str) -> bool:
    """An opinion frame whose content is the next clause ("Ich finde,", "Ich glaube")."""
    c = re.sub(r"\s+(?:dass|daß|que|that)$", "", clause.strip().rstrip(",:;"), flags=re.I)
    m = _OPINION.match(c) or _OPINION_ZH.match(c)
    return m is not None and m.end() >= len(c)


# ("Si, ..." / "Se, ...": yes, not if)
_CONDITION_FIRST = re.compile(r"^(?:if|when|wenn|falls|sofern|si|se|quand|如果|要是)\b(?!\s*[,!.:])", re.I)
_DAY_TO_COME = re.compile(
    r"\b(?:tomorrow|tonight|this (?:weekend|evening|afternoon)|next (?:week|weekend|month)|on " + WEEKDAY
    + r"|morgen|übermorgen|heute abend|am (?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|wochenende)|nächste woche"
    r"|mañana|el (?:lunes|martes|miércoles|jueves|viernes|sábado|domingo)|este fin de semana|la semana que viene"
    r"|demain|ce week-end|ce soir|(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) prochain"
    r"|amanhã|no (?:sábado|domingo)|na (?:segunda|terça|quarta|quinta|sexta)|neste fim de semana)\b|明天|后天|周末|这个周末",
    re.I,
)


# the main clause in the future: "..., we'll move", "..., vamos viajar", "..., abriré", "..., werden wir", "..., on partira"
_FUTURE = re.compile(r"\b(?:will|['’]ll|going to|werden|werde|wird|vamos a|vamos \w+r|iremos|vou|vai|vamos|on va|nous allons|je vais"
                     r"|\w{3,}(?:ré|rás|rá|remos|rán|rei|rão|rai|rons|ront))\b", re.I)


def contingent(sentence: str) -> bool:
    """A plan that hangs on a condition still to come (see the module docstring): the sentence
    opens with its condition and names a day to come or puts its main clause in the future."""
    s = sentence.strip()
    if _CONDITION_FIRST.search(s) is None:
        return False
    main = re.split(r"[,，]", s, maxsplit=1)[-1]
    return _DAY_TO_COME.search(s) is not None or _FUTURE.search(main) is not None


_TODAY = (r"(?:today|tonight|this morning|right now|heute|heute morgen|gerade|hoy|esta mañana|desde esta mañana|ahora mismo"
          r"|aujourd['’]hui|ce matin|hoje|esta manhã|agora)")
_STATE_VERB = (r"(?:i['’]m|i am|i feel|ich bin|bin ich|fühle ich mich|ich fühle mich|estoy|me siento|me duele|me duelen|tengo dolor"
               r"|je suis|je me sens|j['’]ai (?:un peu |très |vraiment )?mal|estou|me sinto|estou com dor|tenho dor"
               # no mood for anything today: "Ich hab heute keine Lust", "Hoy no tengo ganas", "je n'ai pas envie"
               r"|ich hab(?:e)?(?= (?:heute )?keine)|hab(?:e)? ich(?= (?:heute )?keine)|no tengo|je n['’]ai pas|não tenho|i don['’]t feel like)")
_TODAY_STATE = re.compile(r"^(?:" + _TODAY + r"\s+)?" + _STATE_VERB + r"\b(?=.*\b" + _TODAY + r"\b)|^" + _TODAY + r"\s+" + _STATE_VERB + r"\b"
                          r"|^(?:我)?(?:今天|现在)(?:有点|好|很)?(?:头疼|头痛|不舒服|累|困)", re.I)


# how the person is right now, said with the dative or with hunger and thirst: "Mir geht es nicht gut", "Mir ist kalt",
# "Sonst geht es mir gut", "Ich habe Hunger", "Tengo hambre", "J'ai faim", "Estou com fome"
_HOW_NOW = re.compile(
    r"^(?:(?:aber|und|sonst|heute|gerade|momentan)\s+)?(?:mir|uns)\s+(?:geht(?:['’]s|\s+es)|ist(?:\s+(?:so|total|echt|richtig|ein bisschen))?\s+"
    r"(?:kalt|warm|heiß|schlecht|übel|langweilig|schwindlig))\b"
    r"|^(?:(?:aber|und|sonst|heute|gerade|momentan)\s+)?geht(?:['’]s|\s+es)\s+(?:mir|uns)\b"
    r"|^(?:ich\s+hab(?:e)?|tengo|j['’]ai|tenho|estou com|i['’]m)\s+(?:so\s+|solchen\s+|mucha\s+|tanta\s+|très\s+|muita\s+|so\s+)?"
    r"(?:hunger|durst|hambre|sed|sueño|faim|soif|sommeil|fome|sede|sono|hungry|thirsty)\b",
    re.I,
)


def today_state(clause: str) -> bool:
    """How the person is today (see the module docstring): a first-person state verb and a time
    of today, with no number and no name after its first word."""
    c = clause.strip()
    if _HOW_NOW.search(c):
        return True
    if _TODAY_STATE.search(c) is None:
        return False
    return not re.search(r"\d", c) and not re.search(r"\s[A-ZÄÖÜ][a-zäöüß]+(?:\s|$)", re.sub(r"\b(?:Angst|Kopfschmerzen|Lust|Zeit)\b", "", c)[1:])


_DEMONSTRATIVE = re.compile(
    r"^(?:(?i:and|but|y|pero|und|aber|et|mais|e|mas)\s+)?(?:(?i:das|dies|eso|esto|ello|ça|cela|isso|isto)\s+(?![A-ZÄÖÜ]|[a-zäöüß]+e[nrms]?\s+[A-ZÄÖÜ])\w"
    r"|(?i:lo|la|los|las)\s+(?i:echo|extraño|odio|quiero|adoro|amo|detesto)\b"
    r"|(?i:davor|darüber|daran|darauf|dafür|davon)\s+(?:\w+\s+){0,3}?(?i:angst|sorgen|freue|ärgere)\b)"
)
# German verb second: "in der Stadt ist das unbezahlbar" -- "das" right after the verb, an adjective at the end
_V2_DEMONSTRATIVE = re.compile(r"\b(?:ist|war|wäre|sind|waren)\s+(?:das|dies)\s+(?:[a-zäöüß]+\s+)?[a-zäöüß]+[.!]*$")
_FEELING_ABOUT = re.compile(r"\b(?:de eso|de ello|con eso|disso|com isso|of it|about it|about that)\s*$", re.I)


#: a subordinate clause with the person as its subject holds a statement of its own ("ça va mieux depuis que j'ai arrêté")
_OWN_SUBORDINATE = re.compile(r"\b(?:depuis que|desde que|seit|seitdem|since|weil|because|porque|parce que|quand|cuando|when|wenn|als)"
                              r"\s+(?:j['’]|je|ich|wir|yo|i|we|eu|nous|on)\b", re.I)


def anaphoric_comment(clause: str) -> bool:
    """A comment on, or a feeling about, the clause before (see the module docstring)."""
    c = clause.strip()
    if _OWN_SUBORDINATE.search(c):
        return False
    return _DEMONSTRATIVE.match(c) is not None or _V2_DEMONSTRATIVE.search(c) is not None or (_FEELING_ABOUT.search(c) is not None and len(c.split()) <= 6)


_COMPLEMENT = re.compile(r"^(?:dass|daß|que|qu['’]|that|ob|whether"
                         # a consequence of the clause before: "..., deshalb bleibe ich zu Hause"
                         r"|deshalb|deswegen|daher|darum|also|so|por eso|así que|donc|alors|então|por isso)\b", re.I)
_ZU_INFINITIVE = re.compile(r"\bzu\s+[a-zäöüß]+en$|\b[a-zäöüß]{2,}zu[a-zäöüß]+en$")
_OWN_SUBJECT = re.compile(r"\b(?:ich|wir|du|er|sie|es|man)\b", re.I)


def dependent(clause: str) -> bool:
    """The content of the clause before: a complement clause or a zu-infinitive (see the module
    docstring)."""
    c = clause.strip().rstrip(".!")
    if _COMPLEMENT.match(c):
        return True
    return _ZU_INFINITIVE.search(c) is not None and _OWN_SUBJECT.search(c) is None and len(c.split()) <= 8
