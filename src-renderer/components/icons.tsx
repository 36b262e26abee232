/**
 * Icons drawn as inline SVG, so they do not depend on the fonts a machine has (an emoji shield
 * shows as an empty box where no emoji font is installed).
 */
export function ShieldIcon({ size = 12 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 16 16" aria-hidden="true" focusable="false" className="icon">
      <path
        d="M8 1.2 13.5 3.3v4.1c0 3.3-2.3 6-5.5 7.4C4.8 13.4 2.5 10.7 2.5 7.4V3.3Z"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinejoin="round"
      />
      <path
        d="M5.4 7.9 7.2 9.7 10.7 6.2"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
