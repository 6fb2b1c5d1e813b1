//! The names Restate journals are compatibility data: a run started by one build of the service
//! finishes on a rebuilt one (one more tool) that took its place at the same address.

mod support;

use support::*;

#[test]
fn a_run_started_by_one_build_finishes_on_a_rebuilt_one() {
    let dir = TempDir::new("compat");
    let restate = restate();
    let mut service = Service::new(&dir.0);
    service.start("first");
    restate.register(&service.uri()).unwrap();

    start_run(&restate, "compat");
    wait_for("the pause for c5", || {
        (status(&restate, "compat")["waiting"][0]["promise"] == "skyl-approval/1/c5").then_some(())
    });
    // The first build is gone; the rebuilt one is deployed where it was, and registered again.
    service.kill();
    service.start("rebuilt");
    restate.register(&service.uri()).unwrap();

    let approved = post(
        &restate,
        "/AgentRun/compat/decide",
        r#"{"call": "c5", "approve": true}"#,
    );
    assert_eq!(approved.status, 200, "{approved:?}");
    let run = wait_for("the end of the run", || output(&restate, "compat"));
    assert_eq!(
        check_finished(&run, &service.outbox()),
        Vec::<String>::new()
    );

    // The first build ran the calls up to the pause (c6, read-only, ran beside it), the rebuilt
    // one the rest, replaying the first's journal without running anything of it again. (An
    // email prints twice: around its effect.)
    let logs = service.logs();
    let (first, rebuilt) = logs.split_once("--- killed, started again ---\n").unwrap();
    assert!(first.starts_with(&format!(
        "serving AgentRun on {} with 3 tools\n",
        service.uri()
    )));
    assert!(rebuilt.starts_with(&format!(
        "serving AgentRun on {} with 4 tools\n",
        service.uri()
    )));
    let calls = |log: &str| -> Vec<String> {
        log.lines()
            .filter_map(|line| line.strip_prefix("in "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        calls(first),
        [
            "lookup compat/1/c1",
            "lookup compat/1/c2",
            "email compat/2/c3",
            "email compat/2/c4",
            "email compat/2/c3",
            "email compat/2/c4",
            "lookup compat/3/c6"
        ]
    );
    assert_eq!(
        calls(rebuilt),
        [
            "cancel compat/3/c5",
            "email compat/4/c7",
            "email compat/4/c7"
        ]
    );
}

#[test]
fn an_approval_taken_by_a_build_that_defines_the_tool_otherwise_does_not_count() {
    let dir = TempDir::new("changed");
    let restate = restate();
    let mut service = Service::new(&dir.0);
    service.start("first");
    restate.register(&service.uri()).unwrap();

    start_run(&restate, "changed");
    wait_for("the pause for c5", || {
        (status(&restate, "changed")["waiting"][0]["promise"] == "skyl-approval/1/c5").then_some(())
    });
    // The call paused on the first build; the one that takes its place defines cancel_meeting
    // with one more argument, which the person approving it was not shown.
    service.kill();
    service.start("changed");
    restate.register(&service.uri()).unwrap();

    let approved = post(
        &restate,
        "/AgentRun/changed/decide",
        r#"{"call": "c5", "approve": true}"#,
    );
    assert_refused(
        &approved,
        409,
        r#"the approval of call "c5" (cancel_meeting) of run "changed" does not count: the tool cancel_meeting is defined otherwise than when the call paused (the service was rebuilt since); the call waits for another decision (read the run's status)"#,
    );
    // Asked again, on this build, the approval counts.
    wait_for("the second pause for c5", || {
        (status(&restate, "changed")["waiting"][0]["promise"] == "skyl-approval/2/c5").then_some(())
    });
    assert!(
        service
            .outbox()
            .iter()
            .all(|line| line != "c5 cancel standup")
    );
    let approved = post(
        &restate,
        "/AgentRun/changed/decide",
        r#"{"call": "c5", "approve": true}"#,
    );
    assert_eq!(approved.status, 200, "{approved:?}");
    let run = wait_for("the end of the run", || output(&restate, "changed"));
    assert_eq!(
        check_finished(&run, &service.outbox()),
        Vec::<String>::new()
    );
}

/// Not a test of its own: the demo service, when a test starts this binary as its process
/// (`support::demo_command`); in a test run it does nothing.
#[test]
fn demo_service() {
    serve_demo_if_asked();
}
