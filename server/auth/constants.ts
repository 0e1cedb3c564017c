/** The session cookie's name (the proxy reads it without touching the database). */
export const SESSION_COOKIE = "sy_session";

/** The known-device cookie's name (sent only to the sign-in route). */
export const DEVICE_COOKIE = "sy_device";
