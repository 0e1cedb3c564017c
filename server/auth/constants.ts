/** The session cookie's name (the proxy reads it without touching the database). */
export const SESSION_COOKIE = "sy_session";
