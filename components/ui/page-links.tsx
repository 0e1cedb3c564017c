import "./trends.css";
import Link from "next/link";

const PAGES = [
  { href: "/workers", title: "Workers", text: "Per-worker prefix hit rate, KV utilization and state" },
  { href: "/routing", title: "Routing", text: "Decisions with candidate scores and routing loss" },
  { href: "/planner", title: "Planner", text: "Replicas per role and decisions against thresholds" },
];

/** Cards linking to the cluster pages, keeping the current time range. */
export function PageLinks({ query }: { query: string }) {
  return (
    <nav className="page-links" aria-label="Cluster views">
      {PAGES.map((p) => (
        <Link key={p.href} href={`${p.href}?${query}`} className="card">
          <strong>{p.title} →</strong>
          <span className="sub">{p.text}</span>
        </Link>
      ))}
    </nav>
  );
}
