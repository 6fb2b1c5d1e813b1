//! A run through a real Restate server: started at the ingress, paused on a destructive call
//! until a person's decision is posted, finished; and the handler's errors a person meets.

mod support;

use serde_json::json;
use support::*;

#[test]
fn a_run_waits_for_a_decision_posted_at_the_ingress_and_finishes() {
    let dir = TempDir::new("run");
    let restate = restate();
    let mut service = Service::new(&dir.0);
    service.start("first");
    restate.register(&service.uri()).unwrap();

    start_run(&restate, "r1");
    let waiting = wait_for("the pause for c5", || {
        let status = status(&restate, "r1");
        (status["waiting"] != json!([])).then_some(status)
    });
    assert_eq!(
        waiting,
        json!({"waiting": [{
            "call": "c5",
            "tool": "cancel_meeting",
            "arguments": {"meeting": "standup"},
            "promise": "skyl-approval/1/c5"
        }]})
    );
    assert!(output(&restate, "r1").is_none());

    // A decision about a call that is not waiting says which calls are.
    let wrong = post(
        &restate,
        "/AgentRun/r1/decide",
        r#"{"call": "c3", "approve": true}"#,
    );
    assert_refused(
        &wrong,
        404,
        "run \"r1\" has no call \"c3\" waiting for a decision (waiting: c5); read the run's status for the calls it waits on",
    );

    let approved = post(
        &restate,
        "/AgentRun/r1/decide",
        r#"{"call": "c5", "approve": true}"#,
    );
    assert_eq!(approved.status, 200, "{approved:?}");
    let run = wait_for("the end of the run", || output(&restate, "r1"));
    assert_eq!(
        check_finished(&run, &service.outbox()),
        Vec::<String>::new()
    );
    assert_eq!(
        service.outbox(),
        [
            "c3 ada@example.com",
            "c4 bob@example.com",
            "c5 cancel standup",
            "c7 ada@example.com"
        ]
    );
    assert_eq!(status(&restate, "r1"), json!({"waiting": []}));
    assert_eq!(
        user_prompt(&run),
        "Email Ada and Bob that the standup is off, and cancel it."
    );
}

/// Waits until run `id` waits on c5 under promise `promise`.
fn wait_for_pause(restate: &LocalRestate, id: &str, promise: &str) {
    let expected = json!({"waiting": [{
        "call": "c5",
        "tool": "cancel_meeting",
        "arguments": {"meeting": "standup"},
        "promise": promise
    }]});
    wait_for("the pause for c5", || {
        (status(restate, id) == expected).then_some(())
    });
}

#[test]
fn a_decision_that_does_not_count_says_why_and_one_that_came_late_names_the_one_that_stands() {
    let dir = TempDir::new("bound");
    let restate = restate();
    let mut service = Service::new(&dir.0);
    service.start("first");
    restate.register(&service.uri()).unwrap();

    // An approval of other arguments than the call's does not let it run: its caller hears why,
    // and the call asks again.
    start_run(&restate, "arguments");
    wait_for_pause(&restate, "arguments", "skyl-approval/1/c5");
    let other = post(
        &restate,
        "/AgentRun/arguments/decide",
        r#"{"call": "c5", "approve": true, "arguments": {"meeting": "retro"}}"#,
    );
    assert_refused(
        &other,
        422,
        r#"the approval of call "c5" (cancel_meeting) of run "arguments" does not count: it approves the arguments {"meeting":"retro"}, and the call's are {"meeting":"standup"}; the call waits for another decision (read the run's status)"#,
    );
    wait_for_pause(&restate, "arguments", "skyl-approval/2/c5");
    let same = post(
        &restate,
        "/AgentRun/arguments/decide",
        r#"{"call": "c5", "approve": true, "arguments": {"meeting": "standup"}}"#,
    );
    assert_eq!(same.status, 200, "{same:?}");
    let run = wait_for("the end of the run", || output(&restate, "arguments"));
    check_finished(&run, &service.outbox());

    // An approval that expired before the call could run, likewise.
    start_run(&restate, "expired");
    wait_for_pause(&restate, "expired", "skyl-approval/1/c5");
    let expired = post(
        &restate,
        "/AgentRun/expired/decide",
        r#"{"call": "c5", "approve": true, "expires": 1}"#,
    );
    let expired_message = expired.body.clone();
    let now = expired_message
        .rsplit_once("(now ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(now, _)| now.to_owned())
        .unwrap_or_else(|| panic!("no clock in {expired:?}"));
    assert_refused(
        &expired,
        422,
        &format!(
            r#"the approval of call "c5" (cancel_meeting) of run "expired" does not count: it expired at 1 (seconds since the Unix epoch), before the call could run (now {now}); the call waits for another decision (read the run's status)"#
        ),
    );
    wait_for_pause(&restate, "expired", "skyl-approval/2/c5");
    let denied = post(
        &restate,
        "/AgentRun/expired/decide",
        r#"{"call": "c5", "approve": false, "reason": "the standup stays"}"#,
    );
    assert_eq!(denied.status, 200, "{denied:?}");
    // A decision counts once: a later one hears which one stands.
    let again = post(
        &restate,
        "/AgentRun/expired/decide",
        r#"{"call": "c5", "approve": true}"#,
    );
    assert_refused(
        &again,
        409,
        r#"call "c5" of run "expired" was decided already: the decision that stands is denied (the standup stays) ({"call":"c5","approve":false,"reason":"the standup stays"}); a decision counts once"#,
    );
    let run = wait_for("the end of the run", || output(&restate, "expired"));
    let result = run
        .transcript()
        .iter()
        .flat_map(|message| message.tool_results())
        .find(|result| result.call_id == "c5")
        .unwrap();
    assert_eq!(
        result.content,
        "ERROR: cancel_meeting was not run: the standup stays. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
    );
    // The denied cancellation is not in the outbox: the first run's four lines, then this one's
    // three emails.
    let outbox = service.outbox();
    assert_eq!(
        outbox[4..],
        [
            "c3 ada@example.com",
            "c4 bob@example.com",
            "c7 ada@example.com"
        ]
    );
}

#[test]
fn of_two_decisions_posted_at_once_exactly_one_counts_and_the_other_names_it() {
    let dir = TempDir::new("race");
    let restate = restate();
    let mut service = Service::new(&dir.0);
    service.start("first");
    restate.register(&service.uri()).unwrap();

    let approve = r#"{"call": "c5", "approve": true}"#;
    let deny = r#"{"call": "c5", "approve": false, "reason": "the standup stays"}"#;
    for round in 0..3 {
        let id = format!("race{round}");
        start_run(&restate, &id);
        wait_for_pause(&restate, &id, "skyl-approval/1/c5");
        let path = format!("/AgentRun/{id}/decide");
        let barrier = std::sync::Barrier::new(2);
        let (approved, denied) = std::thread::scope(|scope| {
            let post_at_once = |body: &'static str| {
                let (restate, path, barrier) = (&restate, &path, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    post(restate, path, body)
                })
            };
            let approved = post_at_once(approve);
            let denied = post_at_once(deny);
            (approved.join().unwrap(), denied.join().unwrap())
        });
        let run = wait_for("the end of the run", || output(&restate, &id));
        let c5 = run
            .transcript()
            .iter()
            .flat_map(|message| message.tool_results())
            .find(|result| result.call_id == "c5")
            .unwrap()
            .content
            .clone();
        // The run did what the decision answered 200 did; the other caller heard it stands.
        let stands =
            format!("call \"c5\" of run \"{id}\" was decided already: the decision that stands is");
        if approved.status == 200 {
            assert_refused(
                &denied,
                409,
                &format!(
                    r#"{stands} approved ({{"call":"c5","approve":true}}); a decision counts once"#
                ),
            );
            assert_eq!(c5, "standup is cancelled");
        } else {
            assert_eq!(denied.status, 200, "{denied:?}");
            assert_refused(
                &approved,
                409,
                &format!(
                    r#"{stands} denied (the standup stays) ({{"call":"c5","approve":false,"reason":"the standup stays"}}); a decision counts once"#
                ),
            );
            assert_eq!(
                c5,
                "ERROR: cancel_meeting was not run: the standup stays. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
            );
        }
    }
}

#[test]
fn a_run_that_was_never_started_says_so() {
    let dir = TempDir::new("unknown");
    let restate = restate();
    let mut service = Service::new(&dir.0);
    service.start("first");
    restate.register(&service.uri()).unwrap();

    let message = r#"no run has started under the key "nobody": start it with the workflow's run handler (a run just submitted starts in a moment)"#;
    let status = restate
        .ingress_request("POST", "/AgentRun/nobody/status", None)
        .unwrap();
    assert_refused(&status, 404, message);
    let decision = post(
        &restate,
        "/AgentRun/nobody/decide",
        r#"{"call": "c5", "approve": true}"#,
    );
    assert_refused(&decision, 404, message);
    // A body that is not a decision is the caller's mistake too.
    let malformed = post(&restate, "/AgentRun/nobody/decide", r#"{"call": 5}"#);
    assert_eq!(malformed.status, 400, "{malformed:?}");
}

#[test]
fn the_service_says_when_its_address_is_taken_and_exits() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap();
    let dir = TempDir::new("taken");
    let listen = address.to_string();
    let outbox = dir.0.join("outbox.txt");
    let mut child = demo_command(&[
        "--listen".as_ref(),
        listen.as_ref(),
        "--outbox".as_ref(),
        outbox.as_ref(),
    ])
    .stdin(std::process::Stdio::null())
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let exit = wait_for("the service's exit", || child.try_wait().unwrap());
    let output = child.wait_with_output().unwrap();
    assert_eq!(exit.code(), Some(1));
    // Nothing says "serving": it never listened.
    assert_eq!(String::from_utf8_lossy(&output.stdout), HARNESS_OPENING);
    let cause = std::net::TcpListener::bind(address).unwrap_err();
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "agent_service cannot listen on {address}: {cause}; stop what listens there, or pass another address with --listen\n"
        )
    );
}

/// Not a test of its own: the demo service, when a test starts this binary as its process
/// (`support::demo_command`); in a test run it does nothing.
#[test]
fn demo_service() {
    serve_demo_if_asked();
}
