import { SetupForm } from "@/components/auth/setup-form";

export default function SetupPage() {
  return <SetupForm />;
}
