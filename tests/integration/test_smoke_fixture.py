from local.events import SAMPLE_AGENT_ID, SAMPLE_API_KEY_ID, SAMPLE_KEY, SAMPLE_WORKSPACE_ID
from tests.support.lambdas import invoke, sample_event
from tests.support.seed import Seeder


def test_sample_events_replay(aws):
    seed = Seeder(aws.dynamodb)
    ws = seed.workspace(seed.user("a@example.com", plan="pro"), workspace_id=SAMPLE_WORKSPACE_ID)
    seed.api_key(ws.id, raw=SAMPLE_KEY, key_id=SAMPLE_API_KEY_ID)
    seed.agent(ws, agent_id=SAMPLE_AGENT_ID)
    seed.posts(SAMPLE_AGENT_ID, 3)
    r = invoke("BrainWhoAmIFunction", sample_event("BrainWhoAmIFunction"))
    assert r.status == 200, r.body
    assert r.json() == {"workspaceId": SAMPLE_WORKSPACE_ID, "apiKeyId": SAMPLE_API_KEY_ID}
    r = invoke("BrainFeedFunction", sample_event("BrainFeedFunction"))
    assert r.status == 200, r.body
    assert [p["id"] for p in r.json()] == ["post_00002", "post_00001", "post_00000"]
    r = invoke("BrainFallbackFunction", sample_event("BrainFallbackFunction"))
    assert (r.status, r.json()["code"]) == (405, "METHOD_NOT_ALLOWED")
