"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { FormProvider, useForm, type FieldValues, type Resolver } from "react-hook-form";
import { useTRPC } from "@/components/providers/trpc-provider";
import { defaultPolicies, policySchemas, type PolicyKind } from "@/lib/policies/policies";
import { diffDocuments, type DiffEntry } from "@/lib/policies/versions";
import { stashCopy, takeCopy, usePolicyScope, type PolicyCopy } from "./cluster-scope";
import { ConflictPanel, type ConflictState } from "./conflict-panel";
import { DiffTable } from "./diff-table";
import { conflictDetails, errorsByPath, rebaseDraft, serverFieldErrors } from "./drafts";
import { FieldScope, type Operator, type TargetReason } from "./fields";
import { GuardFields } from "./guard-fields";
import { checkGuardDraft, DEFAULT_GUARD_DRAFT, describeGuard, type GuardDraft } from "./guard-form";
import { KindFields } from "./kind-fields";
import { PreviewPanel } from "@/components/preview/preview-panel";
import { refreshAfterWrite } from "@/components/providers/refresh-after-write";
import { RefusalNotice, type Refusal } from "./refusal-notice";

type Published = { version: number; document: unknown; author: string; createdAt: number } | null;
type Base = { version: number | null; document: FieldValues };
type Review = { document: FieldValues; diff: DiffEntry[] };

/** The form's starting point: the latest version with fields added since it was published filled by their defaults. */
function baseOf(kind: PolicyKind, latest: Published): Base {
  if (!latest) return { version: null, document: defaultPolicies()[kind] as FieldValues };
  const filled = policySchemas[kind].safeParse(latest.document);
  return { version: latest.version, document: (filled.success ? filled.data : latest.document) as FieldValues };
}

/**
 * One kind's form: starts from the latest published version (or the defaults), reviews the diff against it, publishes on
 * top of it, and on a conflict keeps the draft and offers to re-apply it on the newer version or discard it.
 */
export function PolicyEditor({
  kind,
  latest,
  reasons,
  operator,
}: {
  kind: PolicyKind;
  latest: Published;
  reasons: TargetReason[];
  operator: Operator;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const { cluster, clusters } = usePolicyScope();
  const [base, setBase] = useState<Base>(() => baseOf(kind, latest));
  const [copied, setCopied] = useState<PolicyCopy | null>(null);
  const [copyTo, setCopyTo] = useState("");
  const [review, setReview] = useState<Review | null>(null);
  const [conflict, setConflict] = useState<ConflictState | null>(null);
  const [comment, setComment] = useState("");
  const [refused, setRefused] = useState<Refusal | null>(null);
  const [published, setPublished] = useState<{ version: number; guard: string | null } | null>(null);
  const [guardDraft, setGuardDraft] = useState<GuardDraft>(DEFAULT_GUARD_DRAFT);
  const guardCheck = checkGuardDraft(guardDraft);
  const form = useForm<FieldValues>({
    resolver: zodResolver(policySchemas[kind] as never) as unknown as Resolver<FieldValues>,
    mode: "onChange",
    defaultValues: base.document,
  });
  const { formState, reset, getValues, trigger, watch, setError } = form;

  // Cross-field rules (scale-down below scale-up, min ≤ max, unique rule names) report on a field other than the one
  // edited, and rule moves are not typing: validate the whole document on every change.
  useEffect(() => {
    const sub = watch(() => void trigger());
    return () => sub.unsubscribe();
  }, [watch, trigger]);

  // A version published elsewhere replaces an untouched form; a draft is kept and the notice below offers the newer one.
  const newer = latest && latest.version > (base.version ?? 0) ? latest : null;
  useEffect(() => {
    if (newer && !formState.isDirty && !review && !conflict) {
      const next = baseOf(kind, newer);
      setBase(next);
      reset(next.document);
    }
  }, [newer, formState.isDirty, review, conflict, kind, reset]);

  // Keyboard users land on the review or conflict screen when it opens.
  const reviewHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (review) reviewHeading.current?.focus();
  }, [review]);
  useEffect(() => {
    if (conflict) document.getElementById(`${kind}-conflict-heading`)?.focus();
  }, [conflict, kind]);

  const invalidate = () => refreshAfterWrite(queryClient, { queryKey: trpc.policies.pathKey() });
  const publish = useMutation(
    trpc.policies.publish.mutationOptions({
      onSuccess: (res, input) => {
        const doc = input.document as FieldValues;
        setBase({ version: res.version, document: doc });
        reset(doc);
        setReview(null);
        setComment("");
        setPublished({
          version: res.version,
          guard: input.guard && guardCheck.guard ? describeGuard(guardCheck.guard) : null,
        });
        setGuardDraft(DEFAULT_GUARD_DRAFT);
        void invalidate();
      },
      onError: async (err) => {
        const c = conflictDetails(err.data as never);
        if (c) {
          const now = await queryClient.fetchQuery({
            ...trpc.policies.latest.queryOptions({ cluster, kind }),
            staleTime: 0,
          });
          setConflict({
            ...c,
            document: (now?.document ?? null) as FieldValues | null,
            author: now?.author ?? null,
            comment: now?.comment ?? "",
          });
          setReview(null);
          void invalidate();
          return;
        }
        const errors = serverFieldErrors(err.data as never);
        for (const e of errors) setError(e.path, { type: "server", message: e.message });
        setRefused({ message: err.message, errors });
        setReview(null);
      },
    }),
  );

  const openReview = (document: FieldValues, against: FieldValues) => {
    const parsed = policySchemas[kind].safeParse(document);
    if (!parsed.success) {
      void trigger();
      return;
    }
    setPublished(null);
    setRefused(null);
    setReview({ document: parsed.data as FieldValues, diff: diffDocuments(against, parsed.data) });
  };

  const rebase = () => {
    if (!conflict?.document) return;
    const next = rebaseDraft(base.document, getValues(), conflict.document);
    setBase({ version: conflict.latest, document: conflict.document });
    reset(conflict.document);
    reset(next.document as FieldValues, { keepDefaultValues: true });
    setConflict(null);
    openReview(next.document as FieldValues, conflict.document);
  };
  const discard = () => {
    if (!conflict?.document) return;
    setBase({ version: conflict.latest, document: conflict.document });
    reset(conflict.document);
    setConflict(null);
  };
  const loadNewer = () => {
    if (!newer) return;
    setBase(baseOf(kind, newer));
    reset(newer.document as FieldValues);
    setReview(null);
  };

  // A draft copied here from another cluster's editor: the review of it against this cluster's current version.
  useEffect(() => {
    const copy = takeCopy(kind, cluster);
    if (!copy) return;
    setCopied(copy);
    reset(copy.document as FieldValues, { keepDefaultValues: true });
    openReview(copy.document as FieldValues, base.document);
    // Once, when the editor opens: later changes of base are a newer version, not a new copy.
  }, []);
  const copyElsewhere = () => {
    if (!copyTo || copyTo === cluster) return;
    stashCopy({ kind, from: cluster, fromVersion: base.version, to: copyTo, document: getValues() });
    router.push(`/policies?kind=${kind}&cluster=${encodeURIComponent(copyTo)}`);
  };
  const others = clusters.filter((c) => c !== cluster);

  const mine = useMemo(
    () => (conflict ? diffDocuments(base.document, getValues()) : []),
    [conflict, base.document, getValues],
  );
  const scope = useMemo(() => ({ idPrefix: kind, reasons: errorsByPath(reasons) }), [kind, reasons]);
  const label = base.version === null ? "defaults" : `v${base.version}`;
  const nextVersion = (base.version ?? 0) + 1;

  return (
    <FormProvider {...form}>
      <FieldScope.Provider value={scope}>
        <div className="policies-editor">
          <p className="sub policies-source" data-testid={`${kind}-source`}>
            {base.version === null ? (
              <>Nothing published yet: the form starts from the built-in defaults. Publishing creates v1.</>
            ) : (
              <>
                Editing from v{base.version}
                {formState.isDirty ? " · unpublished changes" : ""}
              </>
            )}
          </p>
          {published !== null && (
            <p className="policies-ok" role="status">
              Published v{published.version}.
              {published.guard && <> Guard: {published.guard}; it rolls back by itself if it trips.</>}
            </p>
          )}
          {newer && formState.isDirty && !conflict && (
            <div className="notice" role="status">
              <p>
                v{newer.version} was published by {newer.author} since you loaded {label}. Publishing your draft will
                ask you to re-apply it on top.
              </p>
              <button type="button" className="button" onClick={loadNewer}>
                Discard mine and load v{newer.version}
              </button>
            </div>
          )}
          {copied && (
            <p className="notice" role="status" data-testid={`${kind}-copied`}>
              Copied from {copied.from}
              {copied.fromVersion === null ? " (its defaults)" : ` v${copied.fromVersion}`}: the changes below are
              against {cluster}&apos;s {label}. Publishing creates {cluster}&apos;s v{nextVersion} and reaches only its
              targets.
            </p>
          )}
          {refused && <RefusalNotice refused={refused} title="The document was refused" />}

          {conflict && (
            <ConflictPanel
              headingId={`${kind}-conflict-heading`}
              conflict={conflict}
              baseLabel={label}
              mine={mine}
              onRebase={rebase}
              onDiscard={discard}
            />
          )}

          {review && (
            <section className="policies-review" aria-labelledby={`${kind}-review-heading`}>
              <h3 id={`${kind}-review-heading`} ref={reviewHeading} tabIndex={-1}>
                Review: changes from {label}, to publish as {cluster} v{nextVersion}
              </h3>
              <DiffTable
                diff={review.diff}
                label="Changes to publish"
                empty={base.version === null ? "Same as the defaults." : `No changes against v${base.version}.`}
              />
              <PreviewPanel kind={kind} document={review.document} canRun={operator.canEdit} />
              <label className="policies-comment" htmlFor={`${kind}-comment`}>
                Comment
                <textarea
                  id={`${kind}-comment`}
                  rows={2}
                  maxLength={2000}
                  value={comment}
                  onChange={(e) => setComment(e.target.value)}
                  placeholder="Why this change (shown in history and audit)"
                />
              </label>
              <GuardFields
                idPrefix={kind}
                draft={guardDraft}
                errors={guardCheck.errors}
                onChange={setGuardDraft}
                available={base.version !== null}
              />
              <div className="policies-actions">
                <button
                  type="button"
                  className="button policies-primary"
                  disabled={
                    !operator.canEdit ||
                    publish.isPending ||
                    (review.diff.length === 0 && base.version !== null) ||
                    (guardDraft.enabled && !guardCheck.guard)
                  }
                  onClick={() =>
                    publish.mutate({
                      cluster,
                      kind,
                      document: review.document,
                      baseVersion: base.version,
                      comment,
                      guard: base.version === null ? null : guardCheck.guard,
                    } as never)
                  }
                >
                  {publish.isPending ? "Publishing…" : `Publish v${nextVersion}`}
                </button>
                <button type="button" className="button" onClick={() => setReview(null)}>
                  Back to editing
                </button>
              </div>
            </section>
          )}

          <form
            aria-label={`${kind} policy`}
            hidden={Boolean(review || conflict)}
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              openReview(getValues(), base.document);
            }}
          >
            <KindFields kind={kind} />
            <div className="policies-actions">
              <button type="submit" className="button policies-primary" disabled={!formState.isValid}>
                Review changes
              </button>
              <button
                type="button"
                className="button"
                disabled={!formState.isDirty}
                onClick={() => reset(base.document)}
              >
                Reset to {label}
              </button>
              {!formState.isValid && <span className="policies-error">Fix the fields marked above to publish.</span>}
            </div>
            {others.length > 0 && (
              <div className="policies-actions policies-copy">
                <label htmlFor={`${kind}-copy-to`}>Copy this form to</label>
                <select id={`${kind}-copy-to`} value={copyTo} onChange={(e) => setCopyTo(e.target.value)}>
                  <option value="">another cluster…</option>
                  {others.map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </select>
                <button
                  type="button"
                  className="button"
                  disabled={!copyTo || !formState.isValid}
                  onClick={copyElsewhere}
                >
                  Open in {copyTo || "…"}&apos;s editor
                </button>
              </div>
            )}
          </form>
        </div>
      </FieldScope.Provider>
    </FormProvider>
  );
}
