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
