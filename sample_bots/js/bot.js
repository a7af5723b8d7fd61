#!/usr/bin/env node
/**
 * Card Arena sample bot in JavaScript: the whole protocol in one file, for copying.
 *
 *   node sample_bots/js/bot.js [--strategy random|gin]
 *
 * The arena starts the bot with two environment variables:
 *   ARENA_TARGET  where the referee listens: "unix:/path/to.sock" or "host:port"
 *   ARENA_TOKEN   the token that seats this process (in many matches, one after another)
 * and optionally ARENA_BOT_SEED, which seeds the bot's random choices.
 *
 * The conversation (see proto/referee/v1/referee.proto and docs/writing-a-bot.md):
 *   bot: Hello{token}        referee: Welcome
 *   referee: MatchStart      (a match begins: game, seat, rules, time settings)
 *   referee: Turn            bot: Action{request_id, code}   (repeated)
 *   referee: Events          (what the seat may see; also carried by the next Turn)
 *   referee: MatchOver       (then the next MatchStart, on the same stream; reason
 *                             "aborted": a referee error voided the match, no scores)
 *   referee: ActionResult    (a notice: the last answer was illegal, late, ...)
 *   referee: Error           (fatal: bad token, protocol error; the stream closes)
 * The .proto comments list every value of every status, kind, reason and code.
 * The referee closes the stream when it has no more matches for the token: the bot
 * then exits 0. An Error makes it exit 2. A broken connection is retried with backoff.
 *
 * Strategies: "random" plays a uniformly random legal action in every game; "gin"
 * plays Gin Rummy with the simple strategy in gin_strategy.js (random elsewhere).
 */
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const ginStrategy = require('./gin_strategy');

const VERSION = require('./package.json').version;

// The .proto files are loaded at run time from the arena's proto/ folder (ARENA_PROTO_DIR,
// set by the arena, also inside its sandbox), else from this repository's, so the bot
// always speaks the referee's current contract (no generated code to keep in sync).
// proto/ is also the include path, so `import "referee/v1/cards.proto"` works.
const PROTO_DIR = process.env.ARENA_PROTO_DIR || path.resolve(__dirname, '..', '..', 'proto');
const LOADER_OPTIONS = {
  includeDirs: [PROTO_DIR],
  keepCase: true, // field names exactly as in the .proto: legal_actions, request_id, ...
  longs: String, // uint64 request ids stay exact as strings (and are sent back as strings)
  enums: String, // Suit values arrive as names: "CLUBS", "DIAMONDS", ...
  defaults: true, // unset scalars and lists read as 0, "", [] instead of undefined
  oneofs: true, // each oneof gets a field naming the member that is set: msg.kind === "turn"
};

// Time kept back from every deadline for the answer's trip to the referee.
const SAFETY_MARGIN_MS = 50;
// Waits between reconnection attempts after transport errors; then the bot gives up.
const RECONNECT_DELAYS_MS = [100, 200, 500, 1000, 2000, 2000, 2000];

// ---- small helpers ---------------------------------------------------------------

let botName = 'js-bot';

function log(text) {
  process.stderr.write(`[${botName}] ${text}\n`);
}

/**
 * A seeded random generator (sfc32) returning floats in [0, 1). JavaScript's
 * Math.random cannot be seeded, and a reproducible bot makes tournaments
 * reproducible: the same seed and match id give the same play.
 */
function seededRandom(seedText) {
  const h = crypto.createHash('sha256').update(seedText).digest();
  let a = h.readUInt32LE(0);
  let b = h.readUInt32LE(4);
  let c = h.readUInt32LE(8);
  let d = h.readUInt32LE(12);
  return function next() {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

function parseArgs(argv) {
  const usage = 'usage: node bot.js [--strategy random|gin]';
  let strategy = 'random';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--strategy' && i + 1 < argv.length) {
      strategy = argv[++i];
    } else if (arg.startsWith('--strategy=')) {
      strategy = arg.slice('--strategy='.length);
    } else if (arg === '-h' || arg === '--help') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    } else {
      process.stderr.write(`unknown argument ${JSON.stringify(arg)}\n${usage}\n`);
      process.exit(2);
    }
  }
  if (!STRATEGIES[strategy]) {
    process.stderr.write(`unknown strategy ${JSON.stringify(strategy)}\n${usage}\n`);
    process.exit(2);
  }
  return { strategy };
}

// ---- strategies ------------------------------------------------------------------

/**
 * A strategy is a function (turn, ctx) -> action code, where `turn` is the Turn message
 * (turn.observation.<game> is the typed observation, turn.legal_actions the codes you
 * may answer with) and ctx offers:
 *   ctx.random()   a float in [0, 1), seeded per match
 *   ctx.choice(xs) a random element of xs
 *   ctx.timeUp()   true once the thinking budget for this turn is spent: return a
 *                  legal code then (JavaScript cannot interrupt a running function,
 *                  so a slow strategy must check this itself)
 * Returning anything that is not in turn.legal_actions (or throwing) makes the bot
 * play the first legal action instead, so a bug costs a move, not the match.
 */
const STRATEGIES = {
  random: (turn, ctx) => ctx.choice(turn.legal_actions),
  gin: (turn, ctx) =>
    turn.observation.game === 'gin_rummy'
      ? ginStrategy.choose(turn.observation.gin_rummy, turn.legal_actions, ctx)
      : ctx.choice(turn.legal_actions),
};

// ---- the bot -----------------------------------------------------------------------

class Bot {
  constructor({ target, token, seed, strategy }) {
    this.target = target;
    this.token = token;
    this.seed = seed;
    this.strategy = STRATEGIES[strategy];
    this.matchId = null; // the match being played
    this.random = seededRandom(`${seed}/`);
    this.matchesPlayed = 0;
    this.events = 0; // event notices seen in the current match
    const definition = protoLoader.loadSync('referee/v1/referee.proto', LOADER_OPTIONS);
    this.Referee = grpc.loadPackageDefinition(definition).referee.v1.Referee;
  }

  /** Play until the referee closes the stream. Resolves to the process exit code. */
  async run() {
    let failures = 0;
    for (;;) {
      const session = await this.session();
      if (session.fatal) return 2;
      if (session.status.code === grpc.status.OK) return 0;
      // A transport error (referee restarting, socket gone, ...): try again. The referee
      // keeps our seat and resends the current MatchStart and pending Turn on reconnect.
      if (session.welcomed) failures = 0;
      if (failures >= RECONNECT_DELAYS_MS.length) {
        log(`cannot reach the referee at ${this.target}: ${session.status.details}`);
        return 2;
      }
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAYS_MS[failures]));
      failures += 1;
    }
  }

  /** One connection: resolves with {status, welcomed, fatal} when the stream is over. */
  session() {
    const client = new this.Referee(this.target, grpc.credentials.createInsecure());
    const call = client.Play();
    const result = { status: null, welcomed: false, fatal: false };
    return new Promise((resolve) => {
      let ended = false; // every message from the referee has been read
      let done = false;
      const finish = () => {
        // Done once the status is in and, after a normal close, every message was read.
        if (done || !result.status) return;
        if (result.status.code === grpc.status.OK && !ended) return;
        done = true;
        call.end(); // close our side of the stream too
        client.close();
        resolve(result);
      };
      call.on('data', (message) => {
        if (message.kind === 'welcome') result.welcomed = true;
        if (message.kind === 'error') result.fatal = true;
        this.handle(message, call);
      });
      call.on('end', () => {
        ended = true;
        finish();
      });
      call.on('error', () => {}); // failures also arrive as a status, handled below
      call.on('status', (status) => {
        result.status = status;
        finish();
      });
      call.write({ hello: { token: this.token, bot_name: botName, bot_version: VERSION } });
    });
  }

  /** One message from the referee. */
  handle(message, call) {
    switch (message.kind) {
      case 'welcome':
        log(`seated as ${JSON.stringify(message.welcome.player)} (${message.welcome.protocol})`);
        break;
      case 'match_start':
        this.onMatchStart(message.match_start);
        break;
      case 'turn':
        this.onEvents(message.turn.events);
        this.onTurn(message.turn, call);
        break;
      case 'events':
        this.onEvents(message.events.events);
        break;
      case 'action_result': {
        // A notice about something we sent: a fault of our seat ("timeout", "illegal",
        // "malformed", ...) or an answer the referee ignored ("late", "unknown_request").
        const r = message.action_result;
        log(`referee: ${r.status}: ${r.message}` + (r.strikes ? ` (strikes: ${r.strikes})` : ''));
        break;
      }
      case 'match_over':
        this.onMatchOver(message.match_over);
        break;
      case 'error':
        // Fatal ("unauthenticated", "protocol"): the referee closes the stream.
        log(`referee refused the bot: ${message.error.code}: ${message.error.message}`);
        call.end();
        break;
      default:
        break; // a message kind newer than this bot: ignore it
    }
  }

  onMatchStart(start) {
    // A reconnect resends the MatchStart of the match in progress: keep the generator
    // then, so that the match plays exactly as it would have without the reconnect.
    if (start.match_id === this.matchId) return;
    this.matchId = start.match_id;
    this.events = 0;
    // Reseed from (ARENA_BOT_SEED, match id): the play in a match does not depend on
    // what this process played before, so a resumed tournament replays identically.
    this.random = seededRandom(`${this.seed}/${start.match_id}`);
  }

  onEvents(events) {
    // Each notice has kind ("deal", "draw", "discard", ...), text, seat and hand. The
    // observation in every Turn already holds everything the seat knows, so these
    // strategies need no memory; a smarter bot would track the events here.
    this.events += events.length;
  }

  onTurn(turn, call) {
    const legal = turn.legal_actions;
    // seconds_left counts from when the referee sent the turn; measure from now, keep
    // a margin for the trip back, and give the strategy at most that.
    const deadline = performance.now() + turn.seconds_left * 1000 - SAFETY_MARGIN_MS;
    const ctx = {
      random: this.random,
      choice: (xs) => xs[Math.floor(this.random() * xs.length)],
      timeUp: () => performance.now() >= deadline,
    };
    let code = legal[0]; // the fallback: always legal
    if (ctx.timeUp()) {
      log(`no time to think (${turn.seconds_left}s left); playing ${JSON.stringify(code)}`);
    } else {
      try {
        const chosen = this.strategy(turn, ctx);
        if (legal.includes(chosen)) code = chosen;
        else log(`strategy returned ${JSON.stringify(chosen)}, not a legal code; playing ${JSON.stringify(code)}`);
      } catch (err) {
        log(`strategy failed (${err && err.stack ? err.stack : err}); playing ${JSON.stringify(code)}`);
      }
    }
    call.write({ action: { request_id: turn.request_id, code } });
  }

  onMatchOver(over) {
    this.matchesPlayed += 1;
    if (over.reason === 'aborted') {
      // A referee error voided the match: no scores or ranks. The stream stays open
      // and the next MatchStart comes as usual.
      log(`match ${over.match_id} aborted by the referee (void; no result)`);
      this.matchId = null;
      return;
    }
    const faults = over.faults.map((f) => `${f.kind}: ${f.reason}`).join('; ');
    log(
      `match ${over.match_id} over (${over.reason}): seat ${over.seat}, ` +
        `rank ${over.ranks[over.seat]}, score ${over.scores[over.seat]}` +
        (faults ? `, faults: ${faults}` : '') +
        ` [${this.events} events; ${this.matchesPlayed} matches on this process]`,
    );
    this.matchId = null;
  }
}

// ---- main ----------------------------------------------------------------------------

async function main() {
  const { strategy } = parseArgs(process.argv.slice(2));
  botName = `js-${strategy}`;
  const target = process.env.ARENA_TARGET || '';
  const token = process.env.ARENA_TOKEN || '';
  if (!target || !token) {
    log('set ARENA_TARGET and ARENA_TOKEN (the arena does this when it launches a bot)');
    return 2;
  }
  log(`pid ${process.pid}, strategy ${strategy}, connecting to ${target}`);
  const bot = new Bot({ target, token, seed: process.env.ARENA_BOT_SEED || '', strategy });
  return bot.run();
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    log(`crashed: ${err && err.stack ? err.stack : err}`);
    process.exitCode = 1;
  },
);
