package dev.arbiter.facts;

/**
 * A job admitted even though its queue's admission budget has no room, because it can make room itself (e.g. by
 * preempting lower-priority work of its queue). Denials still win over grants.
 */
public record AdmissionGrant(String job, String reason, String rule) {}
