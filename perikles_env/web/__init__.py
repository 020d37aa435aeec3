"""Play Perikles in the browser: a local web server (``python -m perikles_env.web``, or
``perikles-play --web``) where each human seat has its own secret link and agents take the
other seats (docs/play.md); people meet in the lobby with invitation codes, and anyone may
watch a game's public view.

* ``tables``: the games, each kept on disk as a replay record after every decision;
* ``moves``: the seat's legal moves in words, with where they lie on the board;
* ``hotspots``: the clickable layer over the SVG board;
* ``forecast``: while forces are committed, each attack's chance as the seat can tell;
* ``payload``: everything one seat's page receives, and nothing else;
* ``lobby``: what anyone may see of a game (no seed, token or join code);
* ``undo``: whether a move may be taken back (nothing hidden shown, no dice rolled);
* ``hints``: an agent's top moves for a seat, from what that seat may know;
* ``server``: the Starlette application (pages, JSON API, WebSocket updates, agents);
* ``cli``: the command line.

Needs the ``web`` extra (Starlette, uvicorn).
"""
