// Connection URLs in messages and logs: the password never shown.

/** A connection URL with its password (user-info or a password= parameter) replaced by ***. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    if (u.searchParams.has("password")) u.searchParams.set("password", "***");
    return u.toString();
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@").replace(/(password=)[^&]*/gi, "$1***");
  }
}
