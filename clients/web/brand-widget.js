/*
 * brand-widget.js: an agent's brand page (theme, greeting, feed grid, streamed chat) in one <script> tag.
 *
 *   <script src="https://cdn.example/brand-widget.js" async
 *           data-brain-url="https://brain.example" data-key="sk_ws_…" data-agent="prj_…"></script>
 *
 * Optional: data-target="#css-selector" (render there, else right after the tag, or atop the body for a tag in
 * <head>), data-limit (feed tiles, 12).
 * Plain JS, no build step. Every API string reaches the DOM through textContent or a URL attribute,
 * never innerHTML, and the page's CSS only as a plain colour or font name (applyTheme). No globals: each tag
 * mounts its own instance, so two on one page work side by side.
 * See clients/web/README.md for the key to use (restricted origins, low rate limit) and the CSP.
 */
(function () {
  "use strict";

  var CLIENT_STORAGE = "brandWidget.client";
  var SIGN_BATCH = 50; // POST /v1/media-urls signs at most 50 paths at once
  var SIGN_TTL = 900; // seconds a signed media URL lives
  var RESIGN_MARGIN_MS = 60000; // a URL this close to its expiry is signed again before use
  var MAX_MEDIA_RETRIES = 2; // re-signs per element after a load error (expired, revoked…)
  var HISTORY_TURNS = 20;
  var COMMENT_MAX = 1000; // characters of a thumbs-down's comment (the service refuses more)

  function ApiError(status, code, message, retryAfter) {
    var error = new Error(message);
    error.status = status;
    error.code = code;
    error.retryAfter = retryAfter;
    return error;
  }

  // A fetch that never reached an answer the page can read: the network failed, or the service answered
  // without CORS headers (a key restricted to other origins is refused that way: 403 ORIGIN_NOT_ALLOWED).
  function unreachable() {
    return ApiError(0, "UNREACHABLE",
      "The brand service could not be reached from this page: this page's origin may not be allowed " +
      "for its key (ORIGIN_NOT_ALLOWED), or the service is unavailable.");
  }

  async function errorFrom(response) {
    var body = {};
    try { body = await response.json(); } catch (ignored) { /* not JSON: status alone */ }
    var retry = parseInt(response.headers.get("Retry-After") || "", 10);
    return ApiError(response.status, body.code || "HTTP_" + response.status,
      body.error || "The service answered " + response.status + ".", isNaN(retry) ? null : retry);
  }

  function Api(brainUrl, key) {
    this.call = async function (method, path, body, signal) {
      var headers = { Authorization: "Bearer " + key };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      var response;
      try {
        response = await fetch(brainUrl + path, {
          method: method, headers: headers, signal: signal, credentials: "omit", referrerPolicy: "origin",
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        if (error.name === "AbortError") throw error;
        throw unreachable();
      }
      if (!response.ok) throw await errorFrom(response);
      return response;
    };
    this.json = async function (method, path, body) {
      return (await this.call(method, path, body)).json();
    };
  }

  // Short-lived signed URLs for media paths: <img> and <video> cannot send the key, and a key never goes in a URL.
  function Signer(api) {
    var signed = {}; // path -> {url, expiresMs}
    function fresh(path) {
      var entry = signed[path];
      return entry && entry.expiresMs - Date.now() > RESIGN_MARGIN_MS;
    }
    function expiryMs(value) {
      if (typeof value === "number") return value < 1e12 ? value * 1000 : value;
      var parsed = Date.parse(value);
      return isNaN(parsed) ? Date.now() + SIGN_TTL * 1000 : parsed;
    }
    this.sign = async function (paths, force) {
      var wanted = paths.filter(function (p, i) { return paths.indexOf(p) === i && (force || !fresh(p)); });
      for (var start = 0; start < wanted.length; start += SIGN_BATCH) {
        var batch = wanted.slice(start, start + SIGN_BATCH);
        var answer = await api.json("POST", "/v1/media-urls", { paths: batch, expiresIn: SIGN_TTL });
        answer.urls.forEach(function (u) { signed[u.path] = { url: u.url, expiresMs: expiryMs(u.expiresAt) }; });
      }
    };
    this.url = function (path) { return signed[path] ? signed[path].url : null; };
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function uniqueId(prefix) {
    return prefix + "-" + Math.random().toString(36).slice(2, 10);
  }

  function randomId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID(); // secure contexts only
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  // One id per visitor and browser, kept across visits: the service limits chat turns per `client`.
  function visitorId() {
    try {
      var stored = localStorage.getItem(CLIENT_STORAGE);
      if (stored && /^[A-Za-z0-9_-]{16,128}$/.test(stored)) return stored;
      var made = randomId();
      localStorage.setItem(CLIENT_STORAGE, made);
      return made;
    } catch (storageBlocked) {
      return randomId(); // storage disabled (privacy mode, sandboxed frame): one id for this page view
    }
  }

  // Theme values are the wrap author's strings put into the page's CSS, so only plain values are taken: a strict
  // grammar first, CSS.supports second. CSS.supports alone is not enough: any value holding var() (or env(), attr()…)
  // "is supported" for every property, and "url(https://elsewhere/p.png) var(--x,)" as a background made the
  // visitor's browser fetch from elsewhere. The grammars leave no room for another function (the only "(" allowed is
  // a colour function's, holding numbers), a backslash escape, ";" or a comment. clients/web/README.md lists them.
  var COLOURS = [
    /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i, // #rgb, #rgba, #rrggbb, #rrggbbaa
    /^[a-z]+$/i, // a keyword: red, rebeccapurple, transparent… (CSS.supports says which)
    /^(?:rgba?|hsla?)\((?:[0-9.,%+\/\s-]|deg|grad|rad|turn)*\)$/i, // numbers, %, angles, ",", " " and "/" only
  ];
  // One name of a font-family list: letters, digits, spaces, "_" and "-", bare or in quotes (where "." may be too).
  var FONT_NAME = /^\s*(?:"[\p{L}\p{N} _.-]+"|'[\p{L}\p{N} _.-]+'|[\p{L}\p{N}_-][\p{L}\p{N} _-]*)\s*$/u;
  var CSS_WIDE = /^\s*(?:inherit|initial|unset|revert|default)\s*$/i; // CSS's own keywords: neither colour nor font

  function plainColour(value) {
    return typeof value === "string" && value.length <= 64 && !CSS_WIDE.test(value) &&
      COLOURS.some(function (grammar) { return grammar.test(value); }) && CSS.supports("color", value);
  }

  function plainFonts(value) {
    return typeof value === "string" && value.length <= 200 &&
      value.split(",").every(function (name) { return FONT_NAME.test(name) && !CSS_WIDE.test(name); }) &&
      CSS.supports("font-family", value);
  }

  function applyTheme(root, theme) {
    var colours = { primary: "--bw-primary", accent: "--bw-accent", background: "--bw-background", text: "--bw-text" };
    Object.keys(colours).forEach(function (name) {
      if (plainColour(theme[name])) root.style.setProperty(colours[name], theme[name]);
    });
    if (plainFonts(theme.fontFamily)) root.style.setProperty("--bw-font", theme.fontFamily + ", system-ui, sans-serif");
  }

  // What a feed post shows: its video (with poster), its first image, or its text.
  function tileOf(post, base) {
    var first = (post.pages || [])[0];
    if (post.isVideo && post.playable) {
      return { kind: "video", path: base + post.playable, poster: post.poster ? base + post.poster : null, post: post };
    }
    if (first && first.mediaType) return { kind: first.mediaType, path: base + first.key, poster: null, post: post };
    if (post.mediaType === "image") return { kind: "image", path: base + post.key, poster: null, post: post };
    return { kind: "text", path: null, poster: null, post: post };
  }

  function Widget(script) {
    var brainUrl = (script.dataset.brainUrl || "").replace(/\/+$/, "");
    var agent = script.dataset.agent || "";
    var limit = parseInt(script.dataset.limit || "12", 10) || 12;
    var api = new Api(brainUrl, script.dataset.key || "");
    var signer = new Signer(api);
    var client = visitorId();
    var history = [];
    var threadKey = null;
    var controller = null;

    var root = el("section", "bw");
    root.setAttribute("aria-label", "Brand page");
    var avatar = el("img", "bw-avatar");
    avatar.alt = "";
    avatar.hidden = true;
    var greeting = el("p", "bw-greeting");
    var head = el("header", "bw-head");
    head.append(avatar, greeting);
    var status = el("p", "bw-status");
    status.setAttribute("role", "status");
    var grid = el("div", "bw-grid");
    grid.setAttribute("aria-label", "Feed");
    grid.setAttribute("role", "list");
    var log = el("div", "bw-log");
    log.setAttribute("aria-live", "polite");
    log.setAttribute("aria-label", "Conversation");
    var form = el("form", "bw-form");
    var inputId = uniqueId("bw-input");
    var label = el("label", "bw-label", "Ask a question");
    label.htmlFor = inputId;
    var input = el("input", "bw-input");
    input.id = inputId;
    input.type = "text";
    input.maxLength = 4000;
    input.autocomplete = "off";
    var sendButton = el("button", "bw-send", "Send");
    sendButton.type = "submit";
    var stopButton = el("button", "bw-stop", "Stop");
    stopButton.type = "button";
    stopButton.disabled = true;
    var chatStatus = el("p", "bw-chat-status");
    chatStatus.setAttribute("role", "alert");
    form.append(label, input, sendButton, stopButton);
    var chat = el("div", "bw-chat");
    chat.append(log, form, chatStatus);
    root.append(head, status, grid, chat);

    function show(node, message, kind) {
      node.textContent = message || "";
      node.dataset.kind = kind || "";
    }

    function mediaElement(tile, url) {
      var media;
      if (tile.kind === "video") {
        media = el("video", "bw-media");
        media.controls = true;
        media.preload = "metadata";
        media.playsInline = true;
        if (tile.poster && signer.url(tile.poster)) media.poster = signer.url(tile.poster);
      } else {
        media = el("img", "bw-media");
        media.alt = tile.post.title || tile.post.caption || "";
        media.loading = "lazy";
        media.decoding = "async";
      }
      media.dataset.path = tile.path;
      media.src = url;
      var retries = 0;
      // A signed URL that expired (403 SIGNED_URL_EXPIRED) or broke: sign it again and pick up where it was.
      media.addEventListener("error", async function () {
        if (retries >= MAX_MEDIA_RETRIES) return;
        retries += 1;
        var at = media.currentTime || 0;
        var playing = tile.kind === "video" && !media.paused;
        try {
          await signer.sign([tile.path], true);
          media.src = signer.url(tile.path);
          if (tile.kind === "video") {
            media.currentTime = at;
            if (playing) media.play().catch(function () { /* autoplay policy: the user presses play */ });
          }
        } catch (error) {
          show(status, "A picture or video could not be loaded: " + error.message, "error");
        }
      });
      return media;
    }

    function tileNode(tile) {
      var figure = el("figure", "bw-tile");
      figure.setAttribute("role", "listitem");
      figure.dataset.kind = tile.kind;
      var url = tile.path && signer.url(tile.path);
      if (url) figure.append(mediaElement(tile, url));
      else figure.append(el("p", "bw-text", tile.post.title || ""));
      var caption = tile.post.caption || tile.post.title;
      if (caption) figure.append(el("figcaption", "bw-caption", caption));
      return figure;
    }

    async function loadFeed(avatarPath) {
      var posts = await api.json("GET", "/v1/agent/" + encodeURIComponent(agent) + "/feed");
      var base = "projects/" + agent + "/";
      var tiles = posts.slice(0, limit).map(function (post) { return tileOf(post, base); });
      var paths = avatarPath ? [avatarPath] : [];
      tiles.forEach(function (t) { [t.path, t.poster].forEach(function (p) { if (p) paths.push(p); }); });
      await signer.sign(paths);
      if (avatarPath && signer.url(avatarPath)) {
        avatar.src = signer.url(avatarPath);
        avatar.hidden = false;
      }
      grid.replaceChildren.apply(grid, tiles.map(tileNode));
    }

    async function load() {
      show(status, "Loading…", "info");
      try {
        var wrap = await api.json("GET", "/v1/agent/" + encodeURIComponent(agent) + "/wrap");
        applyTheme(root, wrap.theme || {});
        greeting.textContent = wrap.greeting || "";
        var avatarPath = typeof wrap.avatar === "string" && wrap.avatar ? "projects/" + agent + "/" + wrap.avatar : null;
        await loadFeed(avatarPath);
        show(status, "", "");
      } catch (error) {
        show(status, error.message, "error");
        root.dataset.error = error.code;
      }
    }

    function refusal(error) {
      if (error.status === 429) {
        var wait = error.retryAfter !== null ? error.retryAfter : 60;
        return "Too many messages. Please wait " + wait + " s before sending another.";
      }
      if (error.status === 402) return "The assistant is unavailable right now: its owner has run out of credits.";
      return error.message;
    }

    // The reply as the service streams it: NDJSON, one event per line, text appended as each delta arrives; the
    // sources (what the reply drew on) come just before "done". Events of other types are ignored.
    async function readStream(body, reply) {
      var reader = body.getReader();
      var decoder = new TextDecoder();
      var buffered = "";
      var ended = null;
      var sources = [];
      var turnId = null;
      function handle(line) {
        if (!line.trim()) return;
        var event = JSON.parse(line);
        if (event.type === "start") {
          threadKey = event.threadKey;
          turnId = typeof event.turnId === "string" && event.turnId ? event.turnId : null;
        } else if (event.type === "delta") reply.textContent += event.text;
        else if (event.type === "sources") sources = event.sources;
        else if (event.type === "done" || event.type === "error") ended = event;
      }
      for (;;) {
        var chunk = await reader.read();
        if (chunk.done) break;
        buffered += decoder.decode(chunk.value, { stream: true });
        var lines = buffered.split("\n");
        buffered = lines.pop();
        lines.forEach(handle);
      }
      handle(buffered + decoder.decode());
      return { ended: ended, sources: sources, turnId: turnId };
    }

    function httpUrl(url) {
      return typeof url === "string" && /^https?:\/\//i.test(url);
    }

    // What a reply drew on, under it: its name, then where in it (muted). An item's name links to its file through a
    // signed media URL (a link cannot send the key either), signed again when the pointer or the focus reaches a
    // link about to expire; a post or a site section is a plain label. No sources: nothing is shown.
    function showSources(reply, sources) {
      if (!Array.isArray(sources)) return null;
      var list = el("ul", "bw-sources-list");
      var items = []; // {path, name}: the names to turn into links once signed
      sources.forEach(function (source) {
        if (!source || typeof source.name !== "string" || !source.name) return;
        var entry = el("li", "bw-source");
        var name = el("span", "bw-source-name", source.name);
        entry.dataset.source = source.itemId ? "item" : source.postId ? "post" : source.answerId ? "answer" : "section";
        entry.append(name);
        if (typeof source.where === "string" && source.where) entry.append(el("span", "bw-source-where", source.where));
        var linkable = source.itemId && typeof source.r2Key === "string" && source.r2Key;
        if (linkable) items.push({ path: source.r2Key, name: name });
        list.append(entry);
      });
      if (!list.childElementCount) return null;
      var box = el("div", "bw-sources");
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", "Sources");
      box.append(el("p", "bw-sources-title", "Sources"), list);
      reply.after(box);
      linkSources(box, items);
      return box;
    }

    // One request signs the reply's items (Signer: up to 50 paths a request); a refusal leaves them plain labels.
    async function linkSources(box, items) {
      box.dataset.state = "signing";
      try {
        if (items.length) await signer.sign(items.map(function (entry) { return entry.path; }));
      } catch (error) {
        box.dataset.state = "unlinked";
        return;
      }
      items.forEach(function (entry) {
        var url = signer.url(entry.path);
        if (!httpUrl(url)) return;
        var link = el("a", "bw-source-name", entry.name.textContent);
        link.href = url;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        function refresh() {
          signer.sign([entry.path]).then(function () {
            if (httpUrl(signer.url(entry.path))) link.href = signer.url(entry.path);
          }).catch(function () { /* the link keeps its URL */ });
        }
        link.addEventListener("pointerenter", refresh);
        link.addEventListener("focus", refresh);
        entry.name.replaceWith(link);
      });
      box.dataset.state = "done";
    }

    function feedbackRefusal(error) {
      if (error.status === 429) {
        var wait = error.retryAfter !== null ? error.retryAfter : 60;
        return "Too many ratings. Please wait " + wait + " s and try again.";
      }
      if (error.status === 404) return "This reply can no longer be rated (replies can be rated for 7 days).";
      return "Your rating was not saved: " + error.message;
    }

    // Thumbs up and down under a finished reply (after its sources), for the turn the stream's `start` named. A
    // thumb pressed again withdraws the rating (null); a thumbs-down opens a comment box (the rating is saved at
    // once, the comment with a second request). One request at a time: the thumbs are disabled while one is under
    // way, so the last one the visitor made is the one that stands. A refusal is said in words and the thumbs go
    // back to what the service holds.
    function showFeedback(after, turnId) {
      var path = "/v1/agent/" + encodeURIComponent(agent) + "/turns/" + encodeURIComponent(turnId) + "/feedback";
      var saved = null; // the rating the service holds: "up", "down" or null
      var box = el("div", "bw-feedback");
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", "Rate this reply");
      box.dataset.turnId = turnId;
      box.dataset.rating = "";
      box.dataset.state = "idle";
      // The thumb is drawn (inline SVG), never an emoji: a page without an emoji font would show an empty box.
      var THUMB = "M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 " +
        "7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z";
      function thumb(rating, word, name) {
        var button = el("button", "bw-thumb bw-thumb-" + rating);
        button.type = "button";
        button.dataset.rating = rating;
        button.setAttribute("aria-label", name);
        button.setAttribute("aria-pressed", "false");
        button.title = name;
        var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
        svg.setAttribute("viewBox", "0 0 24 24");
        svg.setAttribute("aria-hidden", "true");
        svg.setAttribute("class", "bw-thumb-icon");
        if (rating === "down") svg.setAttribute("transform", "rotate(180)");
        var path = document.createElementNS("http://www.w3.org/2000/svg", "path");
        path.setAttribute("d", THUMB);
        path.setAttribute("fill", "currentColor");
        svg.append(path);
        var label = el("span", "", word);
        label.setAttribute("aria-hidden", "true");
        button.append(svg, label);
        return button;
      }
      var up = thumb("up", "Helpful", "Good reply");
      var down = thumb("down", "Not helpful", "Bad reply");
      var commentForm = el("form", "bw-feedback-comment");
      commentForm.hidden = true;
      var commentId = uniqueId("bw-comment");
      var commentLabel = el("label", "bw-feedback-label", "What was wrong with this reply? (optional)");
      commentLabel.htmlFor = commentId;
      var comment = el("textarea", "bw-feedback-text");
      comment.id = commentId;
      comment.rows = 2;
      comment.maxLength = COMMENT_MAX;
      var commentSend = el("button", "bw-feedback-send", "Send comment");
      commentSend.type = "submit";
      commentForm.append(commentLabel, comment, commentSend);
      var note = el("p", "bw-feedback-status");
      note.setAttribute("role", "status");
      box.append(up, down, commentForm, note);
      after.after(box);

      function render() {
        box.dataset.rating = saved || "";
        up.setAttribute("aria-pressed", String(saved === "up"));
        down.setAttribute("aria-pressed", String(saved === "down"));
      }
      function busy(on) {
        box.dataset.state = on ? "saving" : "idle";
        up.disabled = down.disabled = commentSend.disabled = on;
        if (on) box.setAttribute("aria-busy", "true");
        else box.removeAttribute("aria-busy");
      }
      async function rate(rating, text) {
        var body = { client: client, rating: rating };
        if (text) body.comment = text;
        busy(true);
        show(note, "", "");
        try {
          await api.call("POST", path, body);
          saved = rating;
          render();
          delete box.dataset.error;
          show(note, rating === null ? "Rating withdrawn." : text ? "Thank you for the comment." :
            "Thank you for the feedback.", "info");
          return true;
        } catch (error) {
          render(); // the thumbs as the service holds them
          show(note, feedbackRefusal(error), "error");
          box.dataset.error = error.code || "FEEDBACK_FAILED";
          return false;
        } finally {
          busy(false);
        }
      }
      up.addEventListener("click", function () {
        commentForm.hidden = true;
        rate(saved === "up" ? null : "up");
      });
      down.addEventListener("click", async function () {
        if (saved === "down") {
          commentForm.hidden = true;
          rate(null);
          return;
        }
        if (await rate("down")) {
          commentForm.hidden = false;
          comment.focus();
        }
      });
      commentForm.addEventListener("submit", async function (event) {
        event.preventDefault();
        var text = comment.value.trim();
        if (!text) {
          show(note, "Write a comment first, or leave it: the thumbs-down is saved.", "info");
          return;
        }
        if (await rate("down", text)) {
          commentForm.hidden = true;
          comment.value = "";
        }
      });
      return box;
    }

    async function send(prompt) {
      controller = new AbortController();
      stopButton.disabled = false;
      sendButton.disabled = true;
      show(chatStatus, "", "");
      log.append(el("p", "bw-message bw-user", prompt));
      var reply = el("p", "bw-message bw-reply");
      reply.dataset.state = "waiting";
      log.append(reply);
      log.setAttribute("aria-busy", "true");
      var body = { prompt: prompt, client: client, history: history.slice(-2 * HISTORY_TURNS) };
      if (threadKey) body.threadKey = threadKey;
      try {
        var response = await api.call("POST", "/v1/agent/" + encodeURIComponent(agent) + "/chat", body,
          controller.signal);
        reply.dataset.state = "streaming";
        var streamed = await readStream(response.body, reply);
        var ended = streamed.ended;
        if (ended && ended.type === "done") {
          reply.dataset.state = "done";
          history.push({ role: "user", content: prompt }, { role: "assistant", content: reply.textContent });
          var sourcesBox = showSources(reply, streamed.sources);
          if (streamed.turnId) showFeedback(sourcesBox || reply, streamed.turnId);
        } else {
          reply.dataset.state = "failed";
          show(chatStatus, ended ? ended.message : "The reply was cut off. Please try again.", "error");
        }
      } catch (error) {
        if (error.name === "AbortError") {
          reply.dataset.state = "stopped";
          show(chatStatus, "Stopped.", "info");
        } else {
          reply.dataset.state = "failed";
          show(chatStatus, refusal(error), "error");
          root.dataset.error = error.code || "STREAM_FAILED";
        }
        if (!reply.textContent) reply.remove();
      } finally {
        controller = null;
        stopButton.disabled = true;
        sendButton.disabled = false;
        log.removeAttribute("aria-busy");
      }
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var prompt = input.value.trim();
      if (!prompt || controller) return;
      input.value = "";
      send(prompt);
    });
    stopButton.addEventListener("click", function () {
      if (controller) controller.abort();
    });

    this.mount = function () {
      var target = script.dataset.target ? document.querySelector(script.dataset.target) : null;
      if (script.dataset.target && !target) {
        show(status, "brand-widget: no element matches data-target " + script.dataset.target, "error");
      }
      if (target) target.append(root);
      else if (script.closest("head")) inBody(root);
      else script.after(root);
      if (!brainUrl || !agent || !script.dataset.key) {
        show(status, "brand-widget: data-brain-url, data-key and data-agent are required.", "error");
        return;
      }
      load();
    };
  }

  // A tag in <head> (a file holding only the tag is parsed so) renders at the top of the body: after the tag it
  // would sit in <head>, loaded and working but never shown.
  function inBody(root) {
    if (document.body) document.body.prepend(root);
    else document.addEventListener("DOMContentLoaded", function () { document.body.prepend(root); });
  }

  // The stylesheet next to this script, linked once per page (a <link>, so a CSP needs no 'unsafe-inline').
  function linkStyles(script) {
    var href = script.src.replace(/brand-widget(\.min)?\.js(\?.*)?$/, "brand-widget.css");
    if (href === script.src || document.querySelector("link[data-brand-widget]")) return;
    var link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    link.dataset.brandWidget = "";
    document.head.append(link);
  }

  // document.currentScript is this tag while it runs (async too); else every tag not mounted yet.
  var scripts = document.currentScript ? [document.currentScript]
    : Array.prototype.slice.call(document.querySelectorAll("script[data-brain-url]"));
  scripts.forEach(function (script) {
    if (script.dataset.bwMounted) return;
    script.dataset.bwMounted = "true";
    linkStyles(script);
    new Widget(script).mount();
  });
})();
