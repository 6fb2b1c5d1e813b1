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
    assert_eq!(wrong.status, 500, "{wrong:?}");
    assert!(
        wrong.body.contains(
            "run \\\"r1\\\" has no call \\\"c3\\\" waiting for a decision (waiting: c5); read the run's status for the calls it waits on"
        ),
        "{wrong:?}"
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
