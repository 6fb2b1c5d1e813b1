//! skyl against the floor and against its peers, in one run: the same `forecast(city, days,
//! metric)` tool dispatched by each, with 1 and with 101 tools registered (100 stand-ins and
//! `forecast`).
//!
//! Run with `cargo bench --manifest-path benches/Cargo.toml --bench peers` and compare medians.
//! Every row starts from the same borrowed [`skyl::ToolCall`] (an id, a name and the arguments as
//! a `serde_json::Value`, which is what any provider's response decodes to) and ends with the text
//! that goes back to the model, produced by the library's own dispatch path. What a peer's API
//! needs on the way is part of its row: rmcp takes the arguments as an owned JSON object and a
//! request context, rig as a JSON string (its agent loop serializes them the same way), llm-tool
//! as an owned `Value`. Before measuring, `main` checks that every row answers with the same text
//! and has every tool registered.
//!
//! - `by_hand`: a hand-written `match` on the name and `Args::deserialize(&Value)`, the floor.
//! - `skyl`: `Toolbox::dispatch(..).await`.
//! - `skyl_blocking`: `Toolbox::dispatch_blocking`, for code without an executor.
//! - `rmcp_router_field`: `ServerHandler::call_tool` with the `ToolRouter` kept in a field.
//! - `rmcp_server_handler`: the same through `#[tool_router(server_handler)]`, which builds the
//!   router on every call.
//! - `rig_toolset`: rig-agent's `ToolSet::execute`.
//! - `llm_tool_registry`: llm-tool's `ToolRegistry::dispatch`.
//!
//! Every future here finishes on its first poll (no tool waits on anything), so one executor
//! serves every row: a loop polling with a no-op waker. rmcp alone needs tokio, and only to start
//! the service whose peer handle each request context carries; no row runs on tokio.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use skyl::ToolCall;

/// Calls `$then!` with the names of the 100 stand-in tools, so that every dispatcher registers
/// the same ones.
macro_rules! with_fillers {
    ($then:ident) => {
        $then! {
            filler_00 filler_01 filler_02 filler_03 filler_04 filler_05 filler_06 filler_07
            filler_08 filler_09 filler_10 filler_11 filler_12 filler_13 filler_14 filler_15
            filler_16 filler_17 filler_18 filler_19 filler_20 filler_21 filler_22 filler_23
            filler_24 filler_25 filler_26 filler_27 filler_28 filler_29 filler_30 filler_31
            filler_32 filler_33 filler_34 filler_35 filler_36 filler_37 filler_38 filler_39
            filler_40 filler_41 filler_42 filler_43 filler_44 filler_45 filler_46 filler_47
            filler_48 filler_49 filler_50 filler_51 filler_52 filler_53 filler_54 filler_55
            filler_56 filler_57 filler_58 filler_59 filler_60 filler_61 filler_62 filler_63
            filler_64 filler_65 filler_66 filler_67 filler_68 filler_69 filler_70 filler_71
            filler_72 filler_73 filler_74 filler_75 filler_76 filler_77 filler_78 filler_79
            filler_80 filler_81 filler_82 filler_83 filler_84 filler_85 filler_86 filler_87
            filler_88 filler_89 filler_90 filler_91 filler_92 filler_93 filler_94 filler_95
            filler_96 filler_97 filler_98 filler_99
        }
    };
}

#[path = "peers/by_hand.rs"]
mod by_hand;
#[path = "peers/by_llm_tool.rs"]
mod by_llm_tool;
#[path = "peers/by_rig.rs"]
mod by_rig;
#[path = "peers/by_rmcp.rs"]
mod by_rmcp;
#[path = "peers/by_skyl.rs"]
mod by_skyl;
#[path = "filler.rs"]
mod filler;
#[path = "peers/forecast.rs"]
mod forecast;
#[path = "peers/skyl_tool.rs"]
mod skyl_tool;

/// One way of dispatching a tool call, set up with some number of tools.
trait Dispatcher {
    /// What the library answers a call with.
    type Answer;

    /// A dispatcher knowing `forecast` and, when `tools` is 101, the 100 stand-ins.
    fn with_tools(tools: usize) -> Self;

    /// How many tools the dispatcher knows, by its own count.
    fn registered(&self) -> usize;

    /// Dispatches the call through the library's own path.
    fn dispatch(&self, call: &ToolCall) -> Self::Answer;

    /// The text for the model, and whether the library marks it as an error.
    fn text(answer: &Self::Answer) -> (&str, bool);
}

/// Runs a future that finishes without waiting on anything; every future measured here does.
///
/// Inlined, so that the future is built where it is polled, as `.await` in an async fn builds it;
/// passed to a call, it would be moved first (skyl's is 184 bytes, and the move cost it 14 ns).
#[inline(always)]
fn run<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    for _ in 0..1000 {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
    }
    panic!("a dispatch future is still pending after 1,000 polls: it waits on a reactor")
}

const TOOL_COUNTS: [usize; 2] = [1, 101];

/// Every row answers the call with the floor's text and knows every tool it should.
fn check<D: Dispatcher>(row: &str) {
    let call = forecast::call();
    for tools in TOOL_COUNTS {
        let dispatcher = D::with_tools(tools);
        assert_eq!(dispatcher.registered(), tools, "{row} with {tools} tools");
        let answer = dispatcher.dispatch(&call);
        assert_eq!(
            D::text(&answer),
            (forecast::EXPECTED, false),
            "{row} with {tools} tools"
        );
    }
}

/// Dispatches the call `calls` times, for counting instructions.
fn repeat<D: Dispatcher>(tools: usize, calls: usize) {
    let dispatcher = D::with_tools(tools);
    let call = forecast::call();
    for _ in 0..calls {
        drop(black_box(dispatcher.dispatch(black_box(&call))));
    }
}

struct Row {
    name: &'static str,
    check: fn(&str),
    repeat: fn(usize, usize),
}

const fn row<D: Dispatcher>(name: &'static str) -> Row {
    Row {
        name,
        check: check::<D>,
        repeat: repeat::<D>,
    }
}

const ROWS: [Row; 7] = [
    row::<by_hand::ByHand>("by_hand"),
    row::<by_skyl::BySkyl>("skyl"),
    row::<by_skyl::BySkylBlocking>("skyl_blocking"),
    row::<by_rmcp::RouterField>("rmcp_router_field"),
    row::<by_rmcp::ServerHandlerMacro>("rmcp_server_handler"),
    row::<by_rig::ByRig>("rig_toolset"),
    row::<by_llm_tool::ByLlmTool>("llm_tool_registry"),
];

fn main() {
    for row in &ROWS {
        (row.check)(row.name);
    }
    // count-peer-instructions.sh runs one row alone under callgrind, set by
    // `SKYL_PEER_CALLS="<row> <tools> <calls>"`.
    if let Ok(spec) = std::env::var("SKYL_PEER_CALLS") {
        let [name, tools, calls] = spec.split(' ').collect::<Vec<_>>()[..] else {
            panic!("SKYL_PEER_CALLS is \"<row> <tools> <calls>\", not {spec:?}");
        };
        let row = ROWS
            .iter()
            .find(|row| row.name == name)
            .expect("a row's name");
        (row.repeat)(tools.parse().unwrap(), calls.parse().unwrap());
        return;
    }
    // As in dispatch.rs: the same number of iterations per sample for every row, each answer
    // dropped inside the measured closure as a real caller would.
    divan::Divan::from_args()
        .sample_count(1000)
        .sample_size(100)
        .main();
}

fn measure<D: Dispatcher>(bencher: divan::Bencher<'_, '_>, tools: usize) {
    let dispatcher = D::with_tools(tools);
    let call = forecast::call();
    bencher.bench_local(|| drop(dispatcher.dispatch(black_box(&call))));
}

#[divan::bench(args = TOOL_COUNTS)]
fn by_hand(bencher: divan::Bencher<'_, '_>, tools: usize) {
    measure::<by_hand::ByHand>(bencher, tools);
}

#[divan::bench(args = TOOL_COUNTS)]
fn skyl(bencher: divan::Bencher<'_, '_>, tools: usize) {
    measure::<by_skyl::BySkyl>(bencher, tools);
}

#[divan::bench(args = TOOL_COUNTS)]
fn skyl_blocking(bencher: divan::Bencher<'_, '_>, tools: usize) {
    measure::<by_skyl::BySkylBlocking>(bencher, tools);
}

#[divan::bench(args = TOOL_COUNTS)]
fn rmcp_router_field(bencher: divan::Bencher<'_, '_>, tools: usize) {
    measure::<by_rmcp::RouterField>(bencher, tools);
}

#[divan::bench(args = TOOL_COUNTS)]
fn rmcp_server_handler(bencher: divan::Bencher<'_, '_>, tools: usize) {
    measure::<by_rmcp::ServerHandlerMacro>(bencher, tools);
}

#[divan::bench(args = TOOL_COUNTS)]
fn rig_toolset(bencher: divan::Bencher<'_, '_>, tools: usize) {
    measure::<by_rig::ByRig>(bencher, tools);
}

#[divan::bench(args = TOOL_COUNTS)]
fn llm_tool_registry(bencher: divan::Bencher<'_, '_>, tools: usize) {
    measure::<by_llm_tool::ByLlmTool>(bencher, tools);
}
