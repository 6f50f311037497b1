// Every visible string of the game view (board, hand, panels, log, controls, errors), in English and German
// (Torres is a German game: Ritter, König, Burg, Aktionspunkte, Aktionskarte, Ebene), from this one table.
// `{name}` is filled in by t(key, {name: …}). A string that names a number has a form per plural category
// (Intl.PluralRules: `one`, `other`) and says which of its parameters is the number (`count`). The language is the host's (`lang=de|en` in the URL fragment), else
// the browser's in an embedded page, else English. The lobby, replay and audit pages are English only.

export const LANGUAGES = ['en', 'de'];

export const STRINGS = {
  // the page
  'page.title': { en: 'Torres', de: 'Torres' },
  'embed.no-game': { en: 'No game to show: the link needs game=<id> and token=<seat token>.', de: 'Kein Spiel zu zeigen: der Link braucht game=<id> und token=<Platz-Token>.' },
  'game.label': { en: 'Game', de: 'Spiel' },
  'game.heading': { en: 'Game {id}', de: 'Spiel {id}' },
  'track.heading': { en: 'Score track', de: 'Zählleiste' },
  'track.label': { en: 'Score track: {list}', de: 'Zählleiste: {list}' },
  'moves.heading': { en: 'Moves', de: 'Spielzüge' },
  'replay.link': { en: 'Replay and audit this game', de: 'Dieses Spiel nachspielen und prüfen' },

  // the board
  'board.label': { en: 'Board, 8 by 8 squares', de: 'Spielbrett, 8 mal 8 Felder' },
  'square.height': { en: 'height {n}', de: 'Höhe {n}' },
  'square.knight': { en: '{colour} knight', de: 'Ritter {colour}' },
  'square.king': { en: 'the king', de: 'der König' },
  'square.selected': { en: 'selected', de: 'ausgewählt' },
  'square.choose-knight-for': { en: 'choose this knight for {card}', de: 'diesen Ritter für {card} wählen' },
  'square.your-knight': { en: 'your knight: select to move', de: 'dein Ritter: zum Ziehen auswählen' },
  'square.choices': { count: 'n', en: { one: '{n} choice', other: '{n} choices' }, de: { one: '{n} Möglichkeit', other: '{n} Möglichkeiten' } },
  'square.kinds': { en: 'several kinds of action: {list}', de: 'mehrere Arten von Zügen: {list}' },
  'square.last-turn': { en: 'changed in the last turn', de: 'im letzten Zug verändert' },
  'king.letter': { en: 'K', de: 'K' },
  'colour.0': { en: 'blue', de: 'blau' },
  'colour.1': { en: 'orange', de: 'orange' },
  'colour.2': { en: 'green', de: 'grün' },
  'colour.3': { en: 'purple', de: 'lila' },

  // seats and panels
  'seat.name': { en: 'Seat {n}', de: 'Platz {n}' },
  'seat.you': { en: 'you', de: 'du' },
  'seat.ai': { en: 'AI, {level}', de: 'KI, {level}' },
  'seat.human': { en: 'human', de: 'Mensch' },
  'level.easy': { en: 'easy', de: 'leicht' },
  'level.medium': { en: 'medium', de: 'mittel' },
  'level.hard': { en: 'hard', de: 'schwer' },
  'seats.label': { en: 'Players', de: 'Spieler' },
  'seat.to-move-tag': { en: 'to move', de: 'am Zug' },
  'seat.score': { en: 'score {n}', de: 'Punkte {n}' },
  'seat.stacks': { en: 'stacks {list}', de: 'Stapel {list}' },
  'seat.stacks-none': { en: 'none', de: 'keine' },
  'seat.reserve': { en: 'knights in reserve {n}', de: 'Ritter im Vorrat {n}' },
  'seat.deck': { en: 'deck {n}', de: 'Nachziehstapel {n}' },
  'seat.cards': { en: 'Cards: ', de: 'Karten: ' },
  'seat.cards-label': { en: 'cards of {name}', de: 'Karten von {name}' },
  'seat.no-cards': { en: 'no cards', de: 'keine Karten' },
  'seat.hidden': { count: 'n', en: { one: '{n} card (hidden)', other: '{n} cards (hidden)' }, de: { one: '{n} Karte (verdeckt)', other: '{n} Karten (verdeckt)' } },
  'card.play': { en: 'Play {card}', de: '{card} ausspielen' },

  // the turn line and the clock
  'stage.setup': { en: 'setup', de: 'Spielaufbau' },
  'stage.turn': { en: 'phase {phase} of 3, round {round}', de: 'Phase {phase} von 3, Runde {round}' },
  'stage.keep_card': { en: 'phase {phase}, round {round}: choosing a card to keep', de: 'Phase {phase}, Runde {round}: eine Aktionskarte behalten' },
  'stage.move_king': { en: 'between phases {before} and {phase}: the king may move', de: 'zwischen Phase {before} und {phase}: der König darf ziehen' },
  'stage.over': { en: 'game over', de: 'Spielende' },
  'turn.master': { en: 'master card: {card}', de: 'Meisterkarte: {card}' },
  'turn.yours': { en: 'your turn', de: 'du bist am Zug' },
  'turn.other': { en: '{seat} to move', de: '{seat} ist am Zug' },
  'turn.ap': { en: 'AP left {left} of {all}', de: 'Aktionspunkte übrig {left} von {all}' },
  'clock.left': { en: 'clock: {s} s left for {name}', de: 'Uhr: {s} s übrig für {name}' },
  'clock.banks': { en: 'banks {list}', de: 'Zeitkonten {list}' },
  'clock.forfeited': { en: 'left the game: {list}', de: 'hat das Spiel verlassen: {list}' },
  'clock.ai': { en: 'AI plays for {list}', de: 'KI spielt für {list}' },

  // controls
  'final.heading': { en: 'Final score', de: 'Endwertung' },
  'outcome.win-you': { count: 'points', en: { one: 'You win with {points} point.', other: 'You win with {points} points.' }, de: { one: 'Du gewinnst mit {points} Punkt.', other: 'Du gewinnst mit {points} Punkten.' } },
  'outcome.win-seat': { count: 'points', en: { one: '{name} wins with {points} point.', other: '{name} wins with {points} points.' }, de: { one: '{name} gewinnt mit {points} Punkt.', other: '{name} gewinnt mit {points} Punkten.' } },
  'outcome.tie': { count: 'points', en: { one: 'A tie for first place between {names} with {points} point each.', other: 'A tie for first place between {names} with {points} points each.' }, de: { one: 'Gleichstand auf dem ersten Platz zwischen {names} mit je {points} Punkt.', other: 'Gleichstand auf dem ersten Platz zwischen {names} mit je {points} Punkten.' } },
  'outcome.tie-you': { en: 'you', de: 'dir' },
  'outcome.and': { en: ' and ', de: ' und ' },
  'outcome.none': { en: 'No winner.', de: 'Kein Sieger.' },
  'controls.spectator': { en: 'Watching as a spectator.', de: 'Du schaust als Zuschauer zu.' },
  'controls.waiting': { en: 'Waiting for {seat}…', de: 'Warten auf {seat}…' },
  'chooser.label': { en: 'Choices on {sq}', de: 'Möglichkeiten auf {sq}' },
  'chooser.question': { en: 'What to do on {sq}?', de: 'Was tun auf {sq}?' },
  'chooser.select-knight': { en: 'Select the knight on {sq} to move it', de: 'Den Ritter auf {sq} zum Ziehen auswählen' },
  'chooser.kind': { en: 'Several kinds of action on {sq}: which one?', de: 'Mehrere Arten von Zügen auf {sq}: welche?' },
  'kind.build': { en: 'Build on {sq}', de: 'Auf {sq} bauen' },
  'kind.place': { en: 'Place a figure on {sq}', de: 'Eine Figur auf {sq} setzen' },
  'kind.move': { en: 'Move a figure from or to {sq}', de: 'Eine Figur von oder nach {sq} ziehen' },
  'kind.card': { en: 'Use the card on {sq}', de: 'Die Karte auf {sq} anwenden' },
  // the mode switch: which kind of action the board marks and a click does (each with its mark)
  'mode.legend': { en: 'What the board offers', de: 'Was das Spielbrett anbietet' },
  'mode.all': { en: 'Every kind', de: 'Alle Arten' },
  'mode.build': { en: 'Build', de: 'Bauen' },
  'mode.place': { en: 'Place', de: 'Setzen' },
  'mode.move': { en: 'Move', de: 'Ziehen' },
  'mode.card': { en: 'Card', de: 'Karte' },
  // another seat's turn played back on the board, one action at a time
  'playback.label': { en: 'The turn of {name}, played back', de: 'Der Zug von {name} wird gezeigt' },
  'playback.skip': { en: 'Skip (Esc)', de: 'Überspringen (Esc)' },
  'cancel': { en: 'Cancel', de: 'Abbrechen' },
  'cancel.selection': { en: 'Cancel selection', de: 'Auswahl aufheben' },
  'hint.card-destination': { en: 'Playing {card}: now its destination.', de: '{card}: jetzt das Ziel wählen.' },
  'hint.card-board': { en: 'Playing {card}: choose on the board.', de: '{card}: auf dem Spielbrett wählen.' },
  'hint.knight': { en: 'Knight on {sq}: choose a highlighted destination.', de: 'Ritter auf {sq}: ein markiertes Ziel wählen.' },
  'hint.targets': { en: 'The marked squares are your legal choices.', de: 'Die markierten Felder sind deine erlaubten Züge.' },
  'stacks.legend': { en: 'Blocks from stack', de: 'Bausteine vom Stapel' },
  'stacks.option': { count: 'blocks', en: { one: 'stack {n} ({blocks} block)', other: 'stack {n} ({blocks} blocks)' }, de: { one: 'Stapel {n} ({blocks} Baustein)', other: 'Stapel {n} ({blocks} Bausteine)' } },
  'end.label': { en: 'End the turn', de: 'Den Zug beenden' },
  'end.stack-label': { en: 'Stack used this turn', de: 'Stapel für diesen Zug' },
  'end.use-up': { en: 'Use up ', de: 'Aufbrauchen: ' },
  'end.spread': { en: 'Leftover blocks onto the remaining stacks: ', de: 'Übrige Bausteine auf die restlichen Stapel: ' },
  'end.spread-fixed': { en: 'Leftover blocks go by the edition onto the next stacks: ', de: 'Übrige Bausteine kommen nach den Regeln dieser Ausgabe auf die nächsten Stapel: ' },
  'end.spread-label': { en: 'Leftover blocks onto remaining stack {n}', de: 'Übrige Bausteine auf den restlichen Stapel {n}' },
  'end.button': { en: 'End turn', de: 'Zug beenden' },

  // the coming scoring (the view's `preview`: the rules engine's)
  'preview.heading': { en: 'If phase {phase} ended now', de: 'Wenn Phase {phase} jetzt endete' },
  'preview.note': { en: 'The scoring the rules would give in this position; it changes with every move.', de: 'Die Wertung, die die Regeln in dieser Stellung ergäben; sie ändert sich mit jedem Zug.' },
  'preview.castle': { count: 'area', en: { one: 'castle of {area} square at {at} × level {level} = {points}', other: 'castle of {area} squares at {at} × level {level} = {points}' }, de: { one: 'Burg mit {area} Feld bei {at} × Ebene {level} = {points}', other: 'Burg mit {area} Feldern bei {at} × Ebene {level} = {points}' } },
  'preview.king': { en: 'king bonus {points}', de: 'Königsbonus {points}' },
  'preview.master': { en: 'master card {points}', de: 'Meisterkarte {points}' },
  'preview.collision': { en: '+{points} as no two players share a score', de: '+{points}, da keine zwei Spieler dieselbe Punktzahl teilen' },
  'preview.nothing': { en: 'no knight in a castle', de: 'kein Ritter in einer Burg' },
  'preview.total': { en: '+{gained} (score {score})', de: '+{gained} (Punkte {score})' },

  // keeping a card after buying one from a personal deck: the seen cards as tiles
  'keep.heading': { count: 'n', en: { one: 'Keep the card you drew', other: 'Keep one of the {n} cards you drew' }, de: { one: 'Die gezogene Karte behalten', other: 'Eine der {n} gezogenen Karten behalten' } },
  'keep.kept': { en: 'Kept: {card}', de: 'Behalten: {card}' },
  'keep.position': { en: 'back on the deck {n} of {of} (1 = top) ', de: 'zurück auf den Stapel als {n} von {of} (1 = oben) ' },
  'keep.earlier': { en: 'Put {card} back earlier (nearer the top)', de: '{card} weiter oben zurücklegen' },
  'keep.later': { en: 'Put {card} back later (nearer the bottom)', de: '{card} weiter unten zurücklegen' },
  'keep.rest-legend': { en: 'The other cards go', de: 'Die anderen Karten kommen' },
  'keep.rest.top': { en: 'on top of your deck', de: 'oben auf deinen Stapel' },
  'keep.rest.bottom': { en: 'under your deck', de: 'unter deinen Stapel' },
  'keep.rest-fixed.top': { en: 'The other cards go on top of your deck.', de: 'Die anderen Karten kommen oben auf deinen Stapel.' },
  'keep.rest-fixed.bottom': { en: 'The other cards go under your deck (this edition).', de: 'Die anderen Karten kommen unter deinen Stapel (diese Ausgabe).' },

  // castles on the board (the API's `castles`)
  'square.castle': { en: 'castle of base area {area}', de: 'Burg mit Grundfläche {area}' },

  // what a screen reader hears
  'say.cancelled': { en: 'Selection cancelled', de: 'Auswahl aufgehoben' },
  'say.no-action': { en: 'No legal action on {sq}', de: 'Kein erlaubter Zug auf {sq}' },
  'say.not-your-turn': { en: '{sq}: not your turn', de: '{sq}: du bist nicht am Zug' },
  'say.knight-selected': { en: 'Knight on {sq} selected', de: 'Ritter auf {sq} ausgewählt' },
  'say.card-chosen': { en: '{card} chosen: pick its target on the board', de: '{card} gewählt: das Ziel auf dem Spielbrett wählen' },

  // errors shown to the player (the server's problem details in English; in German the code's own words)
  'error.refused': { en: 'The server refused “{action}”: {reason}', de: 'Der Server hat „{action}“ abgelehnt: {reason}' },
  'error.illegal_action': { en: 'The action is not legal', de: 'Dieser Zug ist nicht erlaubt' },
  'error.version_conflict': { en: 'The game moved on meanwhile', de: 'Das Spiel ist inzwischen weitergegangen' },
  'error.not_your_turn': { en: 'It is not your turn', de: 'Du bist nicht am Zug' },
  'error.network': { en: 'The server cannot be reached', de: 'Der Server ist nicht erreichbar' },
  'error.unauthorized': { en: 'The link is not valid (any more)', de: 'Der Link ist (nicht mehr) gültig' },
  'error.not_found': { en: 'No such game', de: 'Dieses Spiel gibt es nicht' },
  'error.other': { en: 'The server refused the request', de: 'Der Server hat die Anfrage abgelehnt' },

  // actions offered (buttons, choosers, square names)
  'do.place_foundation': { en: 'Place a foundation block on {at}', de: 'Einen Grundstein auf {at} setzen' },
  'do.place_start_knight': { en: 'Place your first knight on {at}', de: 'Deinen ersten Ritter auf {at} setzen' },
  'do.place_king': { en: 'Place the king on {at}', de: 'Den König auf {at} setzen' },
  'do.place_knight': { en: 'Place a new knight on {at} (2 AP)', de: 'Einen neuen Ritter auf {at} setzen (2 Aktionspunkte)' },
  'do.move_knight': { en: 'Move the knight {from} → {to} (1 AP)', de: 'Den Ritter ziehen {from} → {to} (1 Aktionspunkt)' },
  'do.build': { en: 'Build a block on {at}{stack} (1 AP)', de: 'Einen Baustein auf {at} bauen{stack} (1 Aktionspunkt)' },
  'do.from-stack': { en: ' from stack {n}', de: ' vom Stapel {n}' },
  'do.buy_card': { en: 'Buy an action card (1 AP)', de: 'Eine Aktionskarte kaufen (1 Aktionspunkt)' },
  'do.keep_card': { en: 'Keep {card}', de: '{card} behalten' },
  'do.keep_card-rest': { en: 'Keep {card}; put {rest} back on the {where}', de: '{card} behalten; {rest} zurück {where} legen' },
  'do.rest.top': { en: 'top', de: 'oben auf den Stapel' },
  'do.rest.bottom': { en: 'bottom', de: 'unter den Stapel' },
  'do.play_card': { en: 'Play {card}{target}', de: '{card} ausspielen{target}' },
  'do.target-move': { en: ' {from} → {to}', de: ' {from} → {to}' },
  'do.target-at': { en: ' on {at}{stack}', de: ' auf {at}{stack}' },
  'do.advance_track': { en: 'Advance one step on the score track (1 AP)', de: 'Einen Schritt auf der Zählleiste vorrücken (1 Aktionspunkt)' },
  'do.end_turn': { en: 'End the turn', de: 'Den Zug beenden' },
  'do.move_king': { en: 'Move the king to {to}', de: 'Den König auf {to} ziehen' },
  'do.leave_king': { en: 'Leave the king where it is', de: 'Den König stehen lassen' },

  // the move log: what happened, in public words (a kept card of another seat stays unnamed)
  'log.seat': { en: '{name}: ', de: '{name}: ' },
  'log.game': { en: 'Game', de: 'Spiel' },
  'log.turn-you': { en: '{name} (you)', de: '{name} (du)' },
  'log.place_foundation': { en: 'places a foundation block on {at}', de: 'setzt einen Grundstein auf {at}' },
  'log.place_start_knight': { en: 'places a first knight on {at}', de: 'setzt den ersten Ritter auf {at}' },
  'log.place_king': { en: 'places the king on {at}', de: 'setzt den König auf {at}' },
  'log.place_knight': { en: 'places a new knight on {at}', de: 'setzt einen neuen Ritter auf {at}' },
  'log.move_knight': { en: 'moves a knight {from} → {to}', de: 'zieht einen Ritter {from} → {to}' },
  'log.build': { en: 'builds a block on {at}{stack}', de: 'baut einen Baustein auf {at}{stack}' },
  'log.buy_card': { en: 'buys an action card', de: 'kauft eine Aktionskarte' },
  'log.keep_card': { en: 'keeps {card}', de: 'behält {card}' },
  'log.keep_card-hidden': { en: 'keeps an action card', de: 'behält eine Aktionskarte' },
  'log.play_card': { en: 'plays {card}{target}', de: 'spielt {card}{target}' },
  'log.advance_track': { en: 'advances one step on the score track', de: 'rückt einen Schritt auf der Zählleiste vor' },
  'log.end_turn': { en: 'ends the turn', de: 'beendet den Zug' },
  'log.move_king': { en: 'moves the king to {to}', de: 'zieht den König auf {to}' },
  'log.leave_king': { en: 'leaves the king where it is', de: 'lässt den König stehen' },
  'log.auto': { en: ' (automatic: the seat left the game)', de: ' (automatisch: der Platz hat das Spiel verlassen)' },
  'log.game_created': { en: 'game created: {n} players', de: 'Spiel angelegt: {n} Spieler' },
  'log.game_ended': { en: 'game over: scores {scores}', de: 'Spielende: Punkte {scores}' },
  'log.resigned': { en: 'gives up', de: 'gibt auf' },
  'log.timed_out': { en: 'ran out of time', de: 'hat die Zeit überschritten' },
  'log.abandoned': { en: 'The game was ended by its portal', de: 'Das Spiel wurde vom Portal beendet' },
  'log.action_undone': { en: 'takes back a move', de: 'nimmt einen Zug zurück' },

  // the master cards (master version)
  'master.different_levels': { en: 'different levels', de: 'verschiedene Ebenen' },
  'master.same_level': { en: 'same level', de: 'gleiche Ebene' },
  'master.one_line': { en: 'one line', de: 'eine Linie' },
  'master.square': { en: 'square', de: 'Quadrat' },
  'master.edge': { en: 'edge', de: 'Rand' },
  'master.castle_count': { en: 'castle count', de: 'Anzahl der Burgen' },
  'master.diagonals': { en: 'diagonals', de: 'Diagonalen' },
  'master.together': { en: 'together', de: 'zusammen' },
  // What each master card pays (docs/rules.md section 11), shown under the turn line in a master game.
  'master.explained': { en: 'Master card “{card}”: {effect}', de: 'Meisterkarte „{card}“: {effect}' },
  'master-effect.different_levels': { en: 'all your knights on different levels at the end: 40', de: 'alle deine Ritter am Ende auf verschiedenen Ebenen: 40' },
  'master-effect.same_level': { en: 'all your knights on the same level at the end: 50', de: 'alle deine Ritter am Ende auf derselben Ebene: 50' },
  'master-effect.one_line': { en: 'all your knights in one row, column or diagonal at the end: 50', de: 'alle deine Ritter am Ende in einer Reihe, Spalte oder Diagonale: 50' },
  'master-effect.square': { en: 'four of your knights at the corners of a square (any size) at the end: 50', de: 'vier deiner Ritter am Ende an den Ecken eines Quadrats (beliebig groß): 50' },
  'master-effect.edge': { en: 'each knight on an edge square 2 / 5 / 10 after phase 1 / 2 / 3, and the most such knights another 2 / 5 / 10', de: 'jeder Ritter auf einem Randfeld 2 / 5 / 10 nach Phase 1 / 2 / 3, die meisten solchen Ritter weitere 2 / 5 / 10' },
  'master-effect.castle_count': { en: 'all your knights in exactly 4 / 5 / 6 castles after phase 1 / 2 / 3: 5 / 15 / 30', de: 'alle deine Ritter in genau 4 / 5 / 6 Burgen nach Phase 1 / 2 / 3: 5 / 15 / 30' },
  'master-effect.diagonals': { en: 'each knight on a long diagonal 2 / 5 / 10 per phase, and the most such knights another 2 / 5 / 10', de: 'jeder Ritter auf einer langen Diagonale 2 / 5 / 10 je Phase, die meisten solchen Ritter weitere 2 / 5 / 10' },
  'master-effect.together': { en: 'all your knights on one connected group of squares at the end: 40', de: 'alle deine Ritter am Ende auf einer zusammenhängenden Gruppe von Feldern: 40' },

  // the ten action cards: name and effect
  'card.climb_two': { en: 'Climb two', de: 'Zwei Ebenen hoch' },
  'card.climb_two.effect': { en: 'a knight climbs onto an adjacent square exactly 2 levels higher', de: 'ein Ritter steigt auf ein angrenzendes Feld genau 2 Ebenen höher' },
  'card.block_under_knight': { en: 'Block under knight', de: 'Baustein unter Ritter' },
  'card.block_under_knight.effect': { en: 'slide a block from one of your stacks under one of your knights', de: 'einen Baustein aus einem deiner Stapel unter einen deiner Ritter schieben' },
  'card.extra_block': { en: 'Extra block', de: 'Zusätzlicher Baustein' },
  'card.extra_block.effect': { en: 'build one extra block from the supply', de: 'einen zusätzlichen Baustein aus dem Vorrat bauen' },
  'card.castle_gate': { en: 'Castle gate', de: 'Burgtor' },
  'card.castle_gate.effect': { en: 'a gate move through an adjacent castle, climbing allowed', de: 'ein Zug durch das Tor einer angrenzenden Burg, auch nach oben' },
  'card.diagonal': { en: 'Diagonal', de: 'Diagonal' },
  'card.diagonal.effect': { en: 'move a knight one square diagonally', de: 'einen Ritter ein Feld diagonal ziehen' },
  'card.six_ap': { en: 'Six AP', de: 'Sechs Aktionspunkte' },
  'card.six_ap.effect': { en: 'this turn has 6 action points', de: 'dieser Zug hat 6 Aktionspunkte' },
  'card.seven_ap': { en: 'Seven AP', de: 'Sieben Aktionspunkte' },
  'card.seven_ap.effect': { en: 'this turn has 7 action points', de: 'dieser Zug hat 7 Aktionspunkte' },
  'card.move_block': { en: 'Move a block', de: 'Baustein versetzen' },
  'card.move_block.effect': { en: 'move a free block to another legal place', de: 'einen freien Baustein an einen anderen erlaubten Platz versetzen' },
  'card.reposition_knight': { en: 'Reposition knight', de: 'Ritter neu einsetzen' },
  'card.reposition_knight.effect': { en: 'take one of your knights and place it again', de: 'einen deiner Ritter nehmen und neu einsetzen' },
  'card.jump': { en: 'Jump', de: 'Sprung' },
  'card.jump.effect': { en: 'jump over an adjacent figure in a straight line', de: 'über eine angrenzende Figur in gerader Linie springen' },
};

let current = 'en';

/** The language asked for (`de`, `en`, `de-AT`…), else the browser's when `browser` is true, else English. */
export function chooseLanguage(asked, browser = false) {
  const wanted = [asked, ...(browser ? navigator.languages || [navigator.language] : [])];
  for (const tag of wanted) {
    const base = String(tag || '').toLowerCase().split('-')[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

export function setLanguage(lang) {
  current = LANGUAGES.includes(lang) ? lang : 'en';
  document.documentElement.lang = current;
}

export const language = () => current;

/** The string `key` in the page's language, `{name}`s filled in from `params`; for a string with plural forms, the
 * form of its `count` parameter's number (German and English: "1 Feld", "2 Felder"). */
export function t(key, params = {}) {
  const entry = STRINGS[key];
  if (!entry) throw new Error(`no string ${key}`);
  let text = entry[current];
  if (entry.count) {
    if (!(entry.count in params)) throw new Error(`string ${key} needs its count ${entry.count}`);
    text = text[new Intl.PluralRules(current).select(Number(params[entry.count]))] ?? text.other;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}
